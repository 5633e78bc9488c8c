import { createApp } from '/work/main/src/index.ts';
import { serve } from '/work/main/src/runtime/deno.ts';
const app = createApp({ debug: false, env: 'prod', environment: { APP_SECRET: 'x'.repeat(40) }, logSink: (l) => console.log('LOG', l.slice(0, 200)) });
console.log(Object.keys(await import('/work/main/src/runtime/deno.ts')));
