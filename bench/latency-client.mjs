// A second load generator, to check wrk's latency figures: a closed loop over keep-alive connections
// (like wrk: each connection sends its next request when the previous response is complete), timing
// each request from its write to the last byte of its response, and reporting those times as they are.
//
// Why: wrk 4.1 corrects its latency histogram for coordinated omission before printing it
// (`stats_correct` in wrk.c): every sample longer than twice the mean per-connection interval is
// copied down in steps of that interval. On a slow server (irms-debug answering 404s: ~15 ms per
// connection at 50 connections), a few slow requests early in a 5-s run become hundreds of samples,
// and wrk prints a p99 of 130–500 ms where no request in the steady state took more than ~50 ms
// (a 20-s run of the same server: p99 36 ms). See BENCHMARKS.md, Method.
//
// node bench/latency-client.mjs <url> [--method GET] [--body text] [--connections 50] [--seconds 5] [--grace-ms 10000]
// Prints one JSON line: { requests, rps, p50, p90, p99, max (ms), errors, statuses }.
// Responses must carry Content-Length (every bench server's four routes do); anything else is an error.
import net from 'node:net';

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
}

const url = new URL(process.argv[2]);
const method = arg('method', 'GET');
const body = arg('body', '');
const connections = Number(arg('connections', 50));
const seconds = Number(arg('seconds', 5));

const head = `${method} ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\n` + (body ? `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` : '');
const request = Buffer.from(`${head}\r\n${body}`);
const HEADER_END = Buffer.from('\r\n\r\n');

/** A response still missing this long after the run's end counts as an error, and its connection is closed. */
const graceMs = Number(arg('grace-ms', 10_000));

const latencies = [];
const statuses = {};
const sockets = new Set();
let errors = 0;
let stopAt = Infinity;
let firstAt = 0;
let lastAt = 0;

function connection() {
  return new Promise((resolve) => {
    const socket = net.connect(Number(url.port), url.hostname);
    sockets.add(socket);
    socket.setNoDelay(true);
    let sentAt = 0;
    // While a response's head is incomplete: its bytes so far. Then: the body bytes still to come
    // (counted, not kept, so a 53 KB page costs the client no copying).
    let head = null;
    let remaining = -1;
    const send = () => {
      if (performance.now() >= stopAt) {
        socket.end();
        return;
      }
      sentAt = performance.now();
      socket.write(request);
    };
    socket.on('connect', send);
    socket.on('data', (chunk) => {
      let at = 0;
      while (at < chunk.length) {
        if (remaining < 0) {
          const held = head === null ? 0 : head.length;
          const bytes = held === 0 ? chunk.subarray(at) : Buffer.concat([head, chunk.subarray(at)]);
          const end = bytes.indexOf(HEADER_END);
          if (end < 0) {
            head = bytes;
            return;
          }
          const text = bytes.subarray(0, end).toString('latin1');
          const length = /\r\ncontent-length:\s*(\d+)/i.exec(text);
          if (!length) {
            errors++;
            socket.destroy();
            return;
          }
          const status = text.slice(9, 12);
          statuses[status] = (statuses[status] ?? 0) + 1;
          head = null;
          at += end + HEADER_END.length - held;
          remaining = Number(length[1]);
        }
        const take = Math.min(remaining, chunk.length - at);
        remaining -= take;
        at += take;
        if (remaining === 0) {
          const now = performance.now();
          latencies.push(now - sentAt);
          lastAt = now;
          remaining = -1;
          send();
        }
      }
    });
    socket.on('error', () => errors++);
    socket.on('close', () => {
      sockets.delete(socket);
      resolve();
    });
  });
}

firstAt = performance.now();
stopAt = firstAt + seconds * 1000;
// A server that stops answering must not hang the bench.
const overdue = setTimeout(() => {
  for (const socket of sockets) {
    errors++;
    socket.destroy();
  }
}, seconds * 1000 + graceMs);
await Promise.all(Array.from({ length: connections }, connection));
clearTimeout(overdue);
latencies.sort((a, b) => a - b);
const at = (p) => (latencies.length ? Math.round(latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] * 100) / 100 : NaN);
const elapsed = (lastAt - firstAt) / 1000;
console.log(
  JSON.stringify({
    requests: latencies.length,
    rps: elapsed > 0 ? Math.round(latencies.length / elapsed) : NaN,
    p50: at(0.5),
    p90: at(0.9),
    p99: at(0.99),
    max: at(1),
    errors,
    statuses,
  }),
);
