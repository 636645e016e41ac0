// Splits "does the kubelet accept this stdout?" into one verdict per contract
// aspect. The kubelet stops at the first problem; a vendor wants all of them
// at once, so after the kubelet's own verdict (decodeResponse) each aspect is
// also judged on its own, with earlier problems patched out.
import { decodeResponse, type DecodeResult } from '../../api/credentialprovider/response.ts';
import { CACHE_KEY_TYPES } from '../../api/credentialprovider/types.ts';
import { parseGoDuration } from '../../core/duration.ts';
import { endOfFirstValue } from '../../core/json-text.ts';

export type Aspect = 'stdout' | 'apiVersion' | 'kind' | 'strict' | 'cacheKeyType' | 'cacheDuration';

/** ok, a problem (one line), or unknown (an earlier problem hides it). */
export type Verdict = { ok: true } | { ok: false; problem: string } | { ok: 'unknown'; why: string };

export interface ResponseAnalysis {
  /** The kubelet's verdict: accepted, or its decode error. */
  accepted: boolean;
  kubeletError?: string;
  /** stdout was cut at MAX_OUTPUT_BYTES inside what may be a valid response: only the stdout verdict is given. */
  cut?: boolean;
  /** The response object when one could be found in stdout (even among noise). */
  object?: Record<string, unknown>;
  verdicts: Record<Aspect, Verdict>;
}

const RESPONSE_KIND = 'CredentialProviderResponse';
const OK: Verdict = { ok: true };
const STRICT_REASONS = new Set(['unknownField', 'duplicateField', 'type']);

/** `cut`: cutResponse's "stdout was cut at …" when the runner kept only the start of the response; then nothing past stdout is judged. */
export function analyseResponse(
  stdout: string,
  apiVersion: string,
  cut?: string,
  decoded?: DecodeResult,
): ResponseAnalysis {
  if (cut) {
    const unknown: Verdict = { ok: 'unknown', why: `${cut} (see KP-STDOUT-ONLY-JSON)` };
    return {
      accepted: false,
      kubeletError: cut,
      cut: true,
      verdicts: {
        stdout: { ok: false, problem: cut },
        apiVersion: unknown,
        kind: unknown,
        strict: unknown,
        cacheKeyType: unknown,
        cacheDuration: unknown,
      },
    };
  }
  // The runner decoded it already (runKubeletPlugin): a 5 MiB answer is worth decoding once.
  const kubelet = decoded ?? decodeResponse(stdout, apiVersion);
  const verdicts: Record<Aspect, Verdict> = {
    stdout: OK,
    apiVersion: OK,
    kind: OK,
    strict: OK,
    cacheKeyType: OK,
    cacheDuration: OK,
  };
  if (kubelet.ok) return { accepted: true, object: kubelet.response as unknown as Record<string, unknown>, verdicts };

  const whole = parseObject(stdout);
  let object = whole;
  // A whole stdout that parses as one object has the right form: what the kubelet refused is in a field.
  if (!whole) {
    verdicts.stdout = { ok: false, problem: describeStdout(stdout, kubelet.reason) };
    object = firstObject(stdout);
  }
  if (!object) {
    const unknown: Verdict = { ok: 'unknown', why: 'stdout holds no JSON object to inspect' };
    return {
      accepted: false,
      kubeletError: kubelet.error,
      verdicts: {
        ...verdicts,
        apiVersion: unknown,
        kind: unknown,
        strict: unknown,
        cacheKeyType: unknown,
        cacheDuration: unknown,
      },
    };
  }

  if (object.apiVersion !== apiVersion)
    verdicts.apiVersion = { ok: false, problem: `apiVersion is ${show(object.apiVersion)}, want "${apiVersion}"` };
  if (object.kind !== RESPONSE_KIND)
    verdicts.kind = { ok: false, problem: `kind is ${show(object.kind)}, want "${RESPONSE_KIND}"` };
  const ckt = object.cacheKeyType;
  if (ckt === undefined || ckt === '') verdicts.cacheKeyType = { ok: false, problem: 'cacheKeyType is missing' };
  else if (typeof ckt !== 'string' || !(CACHE_KEY_TYPES as readonly string[]).includes(ckt))
    verdicts.cacheKeyType = {
      ok: false,
      problem: `cacheKeyType is ${show(ckt)}, want one of ${CACHE_KEY_TYPES.join(', ')}`,
    };
  const cd = object.cacheDuration;
  if (cd !== undefined && cd !== null) {
    if (typeof cd !== 'string')
      verdicts.cacheDuration = {
        ok: false,
        problem: `cacheDuration is ${show(cd)} (a ${typeof cd}), want a duration string such as "5m"`,
      };
    else if (parseGoDuration(cd) === undefined)
      verdicts.cacheDuration = {
        ok: false,
        problem: `cacheDuration ${show(cd)} is not a Go duration (e.g. "5m", "1h30m")`,
      };
  }

  // Strictness: decode again with every problem judged above patched out; what
  // still fails is an unknown/duplicate field or a wrong type. Re-encoding loses
  // duplicate keys, so the raw text is used when nothing needed patching.
  const patched: Record<string, unknown> = { ...object, apiVersion, kind: RESPONSE_KIND };
  if (verdicts.cacheKeyType.ok !== true) patched.cacheKeyType = 'Image';
  if (verdicts.cacheDuration.ok !== true) delete patched.cacheDuration;
  const needsPatch =
    verdicts.stdout.ok !== true ||
    verdicts.apiVersion.ok !== true ||
    verdicts.kind.ok !== true ||
    verdicts.cacheKeyType.ok !== true ||
    verdicts.cacheDuration.ok !== true;
  const again = decodeResponse(needsPatch ? JSON.stringify(patched) : stdout, apiVersion);
  if (!again.ok) {
    if (STRICT_REASONS.has(again.reason)) verdicts.strict = { ok: false, problem: again.error };
    else if (!needsPatch) verdicts.strict = { ok: false, problem: again.error };
  }
  return { accepted: false, kubeletError: kubelet.error, object, verdicts };
}

function describeStdout(stdout: string, reason: string): string {
  if (stdout.trim() === '') return 'stdout is empty';
  if (reason === 'multipleObjects') return 'stdout holds more than one JSON value';
  const value = parseAny(stdout);
  if (value.ok) return `stdout is a JSON ${value.type}, not the response object`;
  const found = locateFirstObject(stdout);
  if (!found) return `stdout is not JSON: ${show(excerpt(stdout))}`;
  const before = stdout.slice(0, found.start).trim();
  if (before !== '') return `stdout starts with ${show(excerpt(before))} before the JSON response`;
  return `stdout has ${show(excerpt(stdout.slice(found.end)))} after the JSON response`;
}

function parseAny(text: string): { ok: true; type: string } | { ok: false } {
  try {
    const v: unknown = JSON.parse(text);
    return { ok: true, type: v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v };
  } catch {
    return { ok: false };
  }
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The first balanced {...} in text that parses as JSON (found among log noise). */
export function firstObject(text: string): Record<string, unknown> | undefined {
  return locateFirstObject(text)?.object;
}

function locateFirstObject(text: string): { object: Record<string, unknown>; start: number; end: number } | undefined {
  for (let start = text.indexOf('{'); start >= 0; start = text.indexOf('{', start + 1)) {
    const end = endOfFirstValue(text, start);
    if (end !== undefined) {
      const object = parseObject(text.slice(start, end));
      if (object) return { object, start, end };
    }
  }
  return undefined;
}

export function excerpt(text: string, max = 120): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

function show(v: unknown): string {
  return v === undefined ? 'missing' : JSON.stringify(v);
}
