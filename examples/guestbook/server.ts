/** Serves the guestbook on http://127.0.0.1:8000 (debug mode unless APP_ENV=prod: toolbar, /_profiler/). */
import { serve } from '../../src/runtime/node.ts';
import { createGuestbookApp } from './app.ts';

serve(createGuestbookApp(), { port: Number(process.env.PORT ?? 8000) });
