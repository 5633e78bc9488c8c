/**
 * Serves the notes API on http://127.0.0.1:8000 (PORT to change it). Production mode unless
 * APP_DEBUG=1; SIGTERM/SIGINT drain in-flight requests (SHUTDOWN_DEADLINE_MS) and exit.
 */
import { serve } from '../../src/runtime/node.ts';
import { createNotesApp } from './app.ts';

const app = createNotesApp({ env: process.env.APP_DEBUG === '1' ? 'dev' : 'prod' });
const server = await serve(app, { port: Number(process.env.PORT ?? 8000) });
console.error(`notes API on http://${server.hostname}:${server.port}`);
