/** Serves the shop on http://127.0.0.1:8000 (debug mode: toolbar, /_profiler/). */
import { serve } from '../../src/runtime/node.ts';
import { createShopApp } from './app.ts';

serve(createShopApp(), { port: Number(process.env.PORT ?? 8000) });
