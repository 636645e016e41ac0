import { expect, test } from '@jest/globals';
import { busyboxImage } from '../../registry/index.ts';
import { imageVariant, multiImageArchive } from './image-variants.ts';

test('variants share the layer but not the config: each has an image ID of its own; one archive holds them all', async () => {
  const base = await busyboxImage({ marker: 'credprov-unit' });
  const a = imageVariant(base, 'a', 'x/a', 'v1');
  const b = imageVariant(base, 'b', 'x/b', 'v1');
  expect(a.config.digest).not.toBe(b.config.digest);
  expect(a.layers).toEqual(b.layers);
  const archive = multiImageArchive([
    { image: a, ref: 'reg.test/x/a:v1' },
    { image: b, ref: 'reg.test/x/b:v1' },
  ]);
  const text = archive.toString('latin1');
  expect(text).toContain('"io.containerd.image.name":"reg.test/x/a:v1"');
  expect(text).toContain('"io.containerd.image.name":"reg.test/x/b:v1"');
  // The shared layer is stored once.
  expect(text.split(`blobs/sha256/${a.layers[0]!.digest.slice(7)}`).length - 1).toBe(1);
});
