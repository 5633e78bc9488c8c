import type { KernelRequest } from '../http/request.ts';
import type { ControllerEvent } from '../kernel/events.ts';
import { NotFoundHttpException } from '../kernel/exceptions.ts';
import { listener, idleWhen, routeLacks } from '../kernel/hooks.ts';
import { defineOwn } from '../security/mask.ts';

/** A custom converter: the raw route value in, the converted value out; null/undefined = not found (404). */
export type ConverterFunction = (value: unknown, request: KernelRequest) => unknown;

/**
 * The `converters` route option: parameter name → `'int'`, `'float'`, `'date'`, `'bool'`, a function
 * (possibly async), or `{ converter, optional }` (an absent parameter is then left alone).
 */
export type ConverterSpec = 'int' | 'float' | 'date' | 'bool' | ConverterFunction | { converter: 'int' | 'float' | 'date' | 'bool' | ConverterFunction; optional?: boolean };

const INTEGER = /^-?\d{1,16}$/;
const FLOAT = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;
const DATE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * SensioFrameworkExtraBundle's ParamConverterListener: converts route parameters named in the
 * `converters` option (request attribute `_converters`) into typed values, in place in the request
 * attributes. A value that cannot be converted is a 404 (`Invalid integer given for parameter "id".`,
 * `Invalid date given for parameter "day".`, `"member" object not found by the "converters" route
 * option.` when a custom converter answers null). Custom converters may be async; errors they throw
 * keep their own status when they are HTTP errors.
 */
export class ParamConverterListener {
  readonly onKernelController = idleWhen(
    listener<'kernel.controller'>('ParamConverterListener::onKernelController', 'parameter conversion', (event: ControllerEvent) => {
      const request = event.request;
      const converters = request.attributes.get('_converters') as Record<string, ConverterSpec> | undefined;
      if (!converters || typeof converters !== 'object') return;
      let pending: Promise<void>[] | null = null;
      try {
        for (const name of Object.keys(converters)) {
          const result = convert(request, name, converters[name]);
          if (result) (pending ??= []).push(result);
        }
      } catch (error) {
        // The request ends with this error; conversions already under way must not reject unheard
        // (an unhandled rejection ends a Node process).
        if (pending) for (const p of pending) p.catch(() => {});
        throw error;
      }
      if (pending) return Promise.all(pending).then(() => undefined);
    }),
    routeLacks('converters', '_converters'),
  );
}

function convert(request: KernelRequest, name: string, spec: ConverterSpec): void | Promise<void> {
  const converter = typeof spec === 'object' && spec !== null ? spec.converter : spec;
  const optional = typeof spec === 'object' && spec !== null && spec.optional === true;
  const attributes = request.attributes;
  const value = attributes.get(name);
  if (value === undefined || value === null || value === '') {
    if (optional) return;
    throw new NotFoundHttpException(`Missing value for parameter "${name}".`);
  }
  if (typeof converter === 'function') {
    const converted = converter(value, request);
    if (converted !== null && typeof converted === 'object' && typeof (converted as Promise<unknown>).then === 'function') {
      // Adopted as `await` adopts it: a hand-written thenable's own `then` need not return a promise, so
      // chaining on it let the controller run with the raw value and threw the 404 later, uncaught.
      return Promise.resolve(converted as PromiseLike<unknown>).then((v) => store(request, name, v));
    }
    store(request, name, converted);
    return;
  }
  // DateTimeParamConverter: `if (!$value && $configuration->isOptional())` sets null, and PHP's `!'0'` is true.
  if (optional && converter === 'date' && value === '0') {
    attributes.set(name, null);
    return;
  }
  // A value that already has the converter's type (a route default such as a Date) is left as it is,
  // as Sensio's manager leaves an attribute that already holds an object of the wanted class.
  if (alreadyConverted(converter, value)) return;
  const text = String(value);
  switch (converter) {
    case 'int': {
      const int = Number(text);
      if (!INTEGER.test(text) || !Number.isSafeInteger(int)) throw new NotFoundHttpException(`Invalid integer given for parameter "${name}".`);
      // `-0` is the integer 0, as PHP's int is: Number('-0') is the float -0 (`Object.is`, `toLocaleString()` → "-0").
      attributes.set(name, int === 0 ? 0 : int);
      return;
    }
    case 'float': {
      if (!FLOAT.test(text) || !Number.isFinite(Number(text))) throw new NotFoundHttpException(`Invalid number given for parameter "${name}".`);
      attributes.set(name, Number(text));
      return;
    }
    case 'bool': {
      if (text === '1' || text === 'true') attributes.set(name, true);
      else if (text === '0' || text === 'false') attributes.set(name, false);
      else throw new NotFoundHttpException(`Invalid boolean given for parameter "${name}".`);
      return;
    }
    case 'date': {
      // Sensio's DateTimeParamConverter (since 5.5) reads a value FILTER_VALIDATE_INT accepts with min_range 0
      // as a Unix timestamp: `/events/1700000000` is 2023-11-14T22:13:20Z, not a 404.
      const seconds = unixTimestamp(text);
      // One zone for every form: a date-time without an offset is UTC, as a plain date is in ECMAScript
      // (new Date would read it in the host's zone, so one URL would name different instants).
      const date = seconds !== null ? new Date(seconds * 1000) : DATE.test(text) ? new Date(HAS_TIME.test(text) && !HAS_OFFSET.test(text) ? `${text.replace(' ', 'T')}Z` : text) : null;
      if (date === null || Number.isNaN(date.getTime())) throw new NotFoundHttpException(`Invalid date given for parameter "${name}".`);
      attributes.set(name, date);
      return;
    }
    default:
      throw new Error(`Unknown converter ${JSON.stringify(converter)} for parameter "${name}" (use int, float, date, bool or a function).`);
  }
}

/**
 * The seconds of a value PHP's `filter_var($value, FILTER_VALIDATE_INT, ['options' => ['min_range' => 0]])`
 * accepts (PHP's whitespace trimmed; `0`, or digits without a leading zero after an optional `+`; at most PHP_INT_MAX), or
 * null. A timestamp beyond what a Date holds (±8.64e12 s) gives an invalid Date, hence the 404.
 */
function unixTimestamp(text: string): number | null {
  const m = TIMESTAMP.exec(text);
  if (m === null) return null;
  const digits = m[1] ?? '0';
  if (digits.length > 19 || (digits.length === 19 && digits > '9223372036854775807')) return null;
  return Number(digits);
}

const TIMESTAMP = /^[ \t\r\n\v]*(?:0|\+?([1-9][0-9]*))[ \t\r\n\v]*$/;

/** A date-time part; and an offset (`Z`, `+02:00`, `+0200`) at its end. */
const HAS_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d/;
const HAS_OFFSET = /(?:Z|[+-]\d{2}:?\d{2})$/i;

function alreadyConverted(converter: unknown, value: unknown): boolean {
  switch (converter) {
    case 'int':
      return typeof value === 'number' && Number.isSafeInteger(value);
    case 'float':
      return typeof value === 'number' && Number.isFinite(value);
    case 'bool':
      return typeof value === 'boolean';
    case 'date':
      return value instanceof Date && !Number.isNaN(value.getTime());
    default:
      return false;
  }
}

function store(request: KernelRequest, name: string, value: unknown): void {
  if (value === null || value === undefined) throw new NotFoundHttpException(`"${name}" object not found by the "converters" route option.`);
  request.attributes.set(name, value);
}

/**
 * The route parameters with the values the controller gets: each `_route_params` name read from the
 * request attributes, where ParamConverterListener left the converted value (`_route_params` keeps the
 * raw strings). Sensio's SecurityListener and TemplateListener::resolveDefaultParameters read the
 * arguments from `$request->attributes`, so an expression or a template sees the converted object.
 */
export function convertedRouteParams(request: KernelRequest): Record<string, unknown> {
  const raw = request.attributes.get('_route_params');
  if (!raw || typeof raw !== 'object') return {};
  const params: Record<string, unknown> = {};
  for (const name of Object.keys(raw)) {
    defineOwn(params, name, request.attributes.has(name) ? request.attributes.get(name) : (raw as Record<string, unknown>)[name]);
  }
  return params;
}
