// The four bench answers exactly as irms-web (prod) sends them — status, every header, body — taken from
// the real app once at start-up. The floor servers replay them with no kernel in between, which is
// what irms-web would cost if its kernel were free: the ceiling the adapter and the contract's headers
// leave (bench/HISTORY.md, "Why the throughput goals are still missed").
import { makeApp, bareSource } from './irms-app.mjs';

const app = makeApp('prod');

async function capture(method, target) {
  const { response } = await app.handle(bareSource(method, target));
  return { status: response.status, headers: [...response.headers.entries()], body: response.body };
}

export const answers = {
  root: await capture('GET', '/'),
  user: await capture('GET', '/users/42'),
  notFound: await capture('GET', '/does-not-exist'),
};
/** Headers of a JSON 200 (the echo answer has the user route's headers). */
export const jsonHeaders = answers.user.headers;

/** The request headers irms-web reads on a GET (`/`: Host, Content-Type, Authorization, Cookie; a 404 also reads Referer and Accept). */
export const READ_HEADERS = ['host', 'content-type', 'authorization', 'cookie'];
