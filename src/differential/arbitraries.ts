// Generated inputs for the differential tests: image references, matchImages
// patterns and auth keys, and kubelet plugin answers, well beyond the
// catalogue: odd types, encodings, sizes, keys and durations. Each generator
// leans towards the edges (globs, ports, schemes, /v2/, case, control
// characters, numbers where strings go) while still producing the ordinary
// case often enough that "both accept" is tested too.
import fc from 'fast-check';

const V1 = 'credentialprovider.kubelet.k8s.io/v1';
const V1BETA1 = 'credentialprovider.kubelet.k8s.io/v1beta1';
export const PROVIDER_API_VERSIONS = [V1, V1BETA1] as const;

// --- hosts, patterns, images -------------------------------------------------

const plainLabel = fc.constantFrom(
  'reg',
  'io',
  'example',
  'a',
  'b-c',
  'credprov',
  'x1',
  '123',
  'REG',
  'xn--p1ai',
  'ecr',
);
const globLabel = fc.constantFrom(
  '*',
  'r*',
  '*g',
  '*.',
  '[a-c]',
  '[!a]',
  '?',
  're?',
  '[',
  '\\*',
  '[^r]eg',
  'a[b-]',
  '**',
);
const label = fc.oneof(
  { weight: 5, arbitrary: plainLabel },
  { weight: 2, arbitrary: globLabel },
  { weight: 1, arbitrary: fc.constant('') },
);
const hostName = fc.array(label, { minLength: 1, maxLength: 4 }).map((ls) => ls.join('.'));
const host = fc.oneof(
  { weight: 8, arbitrary: hostName },
  {
    weight: 1,
    arbitrary: fc.constantFrom('localhost', '127.0.0.1', '[::1]', '[fe80::1%25eth0]', 'docker.io', 'index.docker.io'),
  },
);
const port = fc.oneof(
  { weight: 4, arbitrary: fc.constant('') },
  { weight: 2, arbitrary: fc.constantFrom(':5000', ':443', ':0', ':65536', ':', ':abc', ':05000', ':*') },
);
const pathPart = fc.constantFrom(
  'team',
  'app',
  'a',
  'v2',
  'v1',
  'library',
  'x*',
  '',
  'Team',
  'a.b',
  'a_b',
  'a__b',
  'a-',
  '%20',
  'a?b',
  'a#b',
);
const path = fc.oneof(
  { weight: 3, arbitrary: fc.constant('') },
  { weight: 4, arbitrary: fc.array(pathPart, { minLength: 1, maxLength: 3 }).map((ps) => `/${ps.join('/')}`) },
  { weight: 1, arbitrary: fc.constantFrom('/', '//', '/v2/', '/v1/', '/v2/team', '/v1/x/') },
);
const scheme = fc.oneof(
  { weight: 6, arbitrary: fc.constant('') },
  { weight: 2, arbitrary: fc.constantFrom('https://', 'http://', 'oci://', 'HTTPS://') },
);

/** A matchImages entry or an auth key: [scheme]host[:port][/path]. */
export const pattern = fc.tuple(scheme, host, port, path).map(([s, h, p, pa]) => `${s}${h}${p}${pa}`);

/** A concrete host a glob label could match: each glob label replaced by a plain one. */
const concreteOf = (p: string) =>
  p
    .replace(/^[a-zA-Z]+:\/\//, '')
    .replace(/\[[^\]]*\]/g, 'a')
    .replace(/[*?]/g, 'x');

/** A repository as the kubelet asks for it (no tag, no digest), often derived from a pattern so that it matches. */
export function repositoryFor(patternArb: fc.Arbitrary<string> = pattern): fc.Arbitrary<string> {
  return fc.oneof(
    {
      weight: 3,
      arbitrary: fc.tuple(patternArb, path).map(([p, extra]) => `${concreteOf(p)}${extra}`.replace(/\/+$/, '')),
    },
    { weight: 2, arbitrary: fc.tuple(host, port, path).map(([h, p, pa]) => `${h}${p}${pa}`) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('nginx', 'library/nginx', 'docker.io/library/nginx', 'index.docker.io/x/y'),
    },
  );
}

const tag = fc.oneof(
  { weight: 3, arbitrary: fc.constant('') },
  {
    weight: 2,
    arbitrary: fc.constantFrom(':1', ':latest', ':v1.2.3', ':1_0-rc.1', ':', ':-bad', `:${'t'.repeat(129)}`, ':.x'),
  },
);
const digest = fc.oneof(
  { weight: 4, arbitrary: fc.constant('') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      `@sha256:${'a'.repeat(64)}`,
      `@sha256:${'A'.repeat(64)}`,
      `@sha256:${'a'.repeat(63)}`,
      `@sha512:${'b'.repeat(128)}`,
      `@md5:${'c'.repeat(32)}`,
      '@sha256:',
      `@${'d'.repeat(64)}`,
    ),
  },
);

/** An image reference as a pod spec may hold it: [registry[:port]/]path[:tag][@digest], odd ones included. */
export const imageRef = fc.oneof(
  { weight: 5, arbitrary: fc.tuple(repositoryFor(), tag, digest).map(([r, t, d]) => `${r}${t}${d}`) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '',
      'UPPER/case',
      'a'.repeat(256),
      'a/'.repeat(40) + 'b',
      `${'e'.repeat(64)}`,
      'reg.io/a//b',
      'reg.io:5000',
    ),
  },
);

// --- kubelet plugin answers ------------------------------------------------------

/** A JSON value of a type a field should not have. */
const oddValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer({ min: -5, max: 300 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constant([]),
  fc.constant({}),
  fc.constant(['x']),
);

const goDurationText = fc.oneof(
  fc.constantFrom(
    '5m',
    '1h30m',
    '0s',
    '0',
    '300ms',
    '1.5h',
    '-5m',
    '1e3s',
    '5 minutes',
    '',
    '1d',
    '5M',
    '.5s',
    '5.s',
    '9999999999h',
    '2562047h',
    '+1m',
    '1h-1m',
    'm',
    '1µs',
    '1us',
    '00s',
  ),
  fc
    .tuple(fc.integer({ min: 0, max: 100000 }), fc.constantFrom('ns', 'us', 'ms', 's', 'm', 'h'))
    .map(([n, u]) => `${n}${u}`),
);

const cacheKeyType = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('Image', 'Registry', 'Global') },
  { weight: 2, arbitrary: fc.constantFrom('', 'image', 'REGISTRY', 'ServiceAccount', 'Image ', 'Token') },
  { weight: 1, arbitrary: oddValue },
);

const secretText = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom('u', 'credprov', 'AWS', 'p@ss', 'fake-password', '') },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
);

/** One auth entry: usually {username, password}, sometimes odd. */
const authEntry = fc.oneof(
  { weight: 8, arbitrary: fc.record({ username: secretText, password: secretText }) },
  { weight: 1, arbitrary: fc.record({ username: secretText }) },
  {
    weight: 1,
    arbitrary: fc.oneof(
      fc.record({ username: oddValue, password: secretText }),
      fc.record({ username: secretText, password: oddValue }),
      fc.record({ username: secretText, password: secretText, auth: fc.constant('dTpw') }),
      fc.record({ Username: secretText, password: secretText }),
      oddValue,
    ),
  },
);

export interface GeneratedAnswer {
  /** The provider's apiVersion (what the kubelet expects back). */
  apiVersion: string;
  matchImages: string[];
  image: string;
  stdout: string;
  /** With tokenAttributes: the service account token the kubelet sends, and the cacheType. */
  serviceAccount?: { token: string; cacheType: 'Token' | 'ServiceAccount' };
}

/** Top-level fields of a response, as key/value pairs (duplicates and odd keys included). */
const responseFields = (apiVersion: string, image: string, token: string | undefined) =>
  fc
    .record(
      {
        apiVersion: fc.oneof(
          { weight: 8, arbitrary: fc.constant(apiVersion) },
          {
            weight: 2,
            arbitrary: fc.constantFrom(
              V1,
              V1BETA1,
              'credentialprovider.kubelet.k8s.io/v1alpha1',
              'v1',
              'a/b/c',
              '',
              `${apiVersion} `,
            ),
          },
          { weight: 1, arbitrary: oddValue },
        ),
        kind: fc.oneof(
          { weight: 8, arbitrary: fc.constant('CredentialProviderResponse') },
          { weight: 1, arbitrary: fc.constantFrom('CredentialProviderRequest', 'credentialproviderresponse', '') },
          { weight: 1, arbitrary: oddValue },
        ),
        cacheKeyType,
        cacheDuration: fc.oneof({ weight: 3, arbitrary: goDurationText }, { weight: 1, arbitrary: oddValue }),
        auth: fc.oneof(
          {
            weight: 8,
            arbitrary: fc.dictionary(
              fc.oneof(
                { weight: 3, arbitrary: pattern },
                { weight: 2, arbitrary: fc.constant(image.split('/')[0]!) },
                { weight: 2, arbitrary: fc.constant(image) },
              ),
              token !== undefined ? fc.oneof(authEntry, fc.constant({ username: 'sa', password: token })) : authEntry,
              { maxKeys: 4 },
            ),
          },
          { weight: 1, arbitrary: oddValue },
        ),
        extra: fc.constantFrom('expiresAt', 'Auth', 'KIND', 'cachekeytype', 'metadata', 'status'),
      },
      { requiredKeys: ['apiVersion', 'kind', 'cacheKeyType'] },
    )
    .chain((f) =>
      fc
        .shuffledSubarray(Object.keys(f), { minLength: Object.keys(f).length })
        .map((order) =>
          order.map((k): [string, unknown] =>
            k === 'extra' ? [f.extra as string, 'x'] : [k, (f as Record<string, unknown>)[k]],
          ),
        ),
    );

/** JSON text of key/value pairs (so duplicate keys survive), in Go's or another spelling. */
function objectText(pairs: Array<[string, unknown]>, spaced: boolean): string {
  const sep = spaced ? ', ' : ',';
  return `{${pairs.map(([k, v]) => `${JSON.stringify(k)}:${spaced ? ' ' : ''}${JSON.stringify(v)}`).join(sep)}}`;
}

/** How the object is put on stdout: JSON as Go writes it, pretty, with a BOM, noise, a second object, YAML. */
const framing = fc.oneof(
  { weight: 10, arbitrary: fc.constant((o: string) => `${o}\n`) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      (o: string) => o,
      (o: string) => `  \n${o}\r\n\t`,
      (o: string) => JSON.stringify(JSON.parse(o), null, 2),
    ),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      (o: string) => `\uFEFF${o}`,
      (o: string) => `log line\n${o}`,
      (o: string) => `${o}\ndone`,
      (o: string) => `${o}${o}`,
      (o: string) => `[${o}]`,
      (_o: string) => '',
      (_o: string) => 'null',
      (o: string) => `${o.slice(0, -1)}`,
      (o: string) => o.replace(/"auth"/, '"\\u0061uth"'),
    ),
  },
);

/** A provider entry, the image the kubelet asks for, and what the plugin printed. */
export const kubeletAnswer: fc.Arbitrary<GeneratedAnswer> = fc
  .record({
    apiVersion: fc.constantFrom(...PROVIDER_API_VERSIONS),
    matchImages: fc.array(pattern, { minLength: 1, maxLength: 2 }),
    sa: fc.option(
      fc.record({
        token: fc.constant('eyJhbGciOiJSUzI1NiJ9.c2E.c2ln'),
        cacheType: fc.constantFrom('Token' as const, 'ServiceAccount' as const),
      }),
      { freq: 5 },
    ),
  })
  .chain(({ apiVersion, matchImages, sa }) =>
    fc
      .oneof(
        { weight: 3, arbitrary: repositoryFor(fc.constantFrom(...matchImages)) },
        { weight: 1, arbitrary: repositoryFor() },
      )
      .chain((image) =>
        fc.tuple(responseFields(apiVersion, image, sa?.token), fc.boolean(), framing).map(([pairs, spaced, frame]) => ({
          apiVersion,
          matchImages,
          image,
          stdout: frame(objectText(pairs, spaced)),
          ...(sa ? { serviceAccount: sa } : {}),
        })),
      ),
  );
