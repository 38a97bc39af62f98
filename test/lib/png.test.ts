import { describe, expect, it } from "vitest";
import { encodeGrayPng } from "../../src/lib/png";
import { crc32, readPng } from "../helpers/png";

/**
 * The PNG encoder (src/lib/png.ts): 8-bit grayscale, one IDAT compressed as zlib. Each image is read back with a
 * reader written apart from it (test/helpers/png.ts), which checks the signature, every CRC and the zlib stream.
 */

const random = (n: number) => crypto.getRandomValues(new Uint8Array(n));

describe("encodeGrayPng", () => {
  it("writes exactly the pixels it is given: read back, the same size and bytes", async () => {
    for (const [width, height] of [
      [1, 1],
      [7, 5],
      [1, 64],
      [300, 2],
    ] as const) {
      const pixels = random(width * height);
      const png = await encodeGrayPng({ width, height, pixels });
      const read = await readPng(png);
      expect(read.width).toBe(width);
      expect(read.height).toBe(height);
      expect(read.pixels).toEqual(pixels);
    }
  });

  it("is a PNG: the signature, then IHDR (8-bit grayscale, no interlace), one IDAT, IEND", async () => {
    const png = await encodeGrayPng({ width: 3, height: 2, pixels: Uint8Array.of(0, 128, 255, 255, 128, 0) });
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    // IHDR: length 13, type, width 3, height 2, depth 8, colour type 0, compression 0, filter 0, interlace 0.
    expect([...png.subarray(8, 33)]).toEqual([0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 3, 0, 0, 0, 2, 8, 0, 0, 0, 0, ...png.subarray(29, 33)]);
    expect((await readPng(png)).chunks).toEqual(["IHDR", "IDAT", "IEND"]);
    // IEND is always the same twelve bytes, its CRC included (a known answer for the CRC).
    expect([...png.subarray(png.length - 12)]).toEqual([0, 0, 0, 0, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82]);
  });

  it("compresses IDAT in the zlib format PNG requires (not raw deflate, not gzip)", async () => {
    const { zlibHeader } = await readPng(await encodeGrayPng({ width: 20, height: 20, pixels: random(400) }));
    const [cmf, flg] = zlibHeader;
    expect(cmf & 0x0f, "compression method 8: deflate").toBe(8);
    expect((cmf * 256 + flg) % 31, "the header check").toBe(0);
  });

  it("compresses: a flat image of 400 x 400 pixels (160,000 bytes) is a PNG of a few hundred bytes", async () => {
    const pixels = new Uint8Array(400 * 400).fill(255);
    const png = await encodeGrayPng({ width: 400, height: 400, pixels });
    expect(png.length).toBeLessThan(2000);
    expect((await readPng(png)).pixels).toEqual(pixels);
  });

  it("the reader's CRC is the standard one, and a damaged byte is caught", async () => {
    expect(crc32(new TextEncoder().encode("123456789"))).toBe(0xcbf43926);
    const png = await encodeGrayPng({ width: 4, height: 4, pixels: random(16) });
    const damaged = png.slice();
    damaged[40] = damaged[40]! ^ 0xff;
    await expect(readPng(damaged)).rejects.toThrow(/CRC mismatch/);
  });

  it("refuses a size the format cannot hold, or pixels that do not fill it", async () => {
    for (const [width, height, count] of [
      [0, 1, 0],
      [1, 0, 0],
      [1.5, 2, 3],
      [-1, 1, 1],
      [2 ** 31, 1, 1],
      [2, 2, 3],
      [2, 2, 5],
    ] as const) {
      await expect(encodeGrayPng({ width, height, pixels: new Uint8Array(count) }), `${width} x ${height}, ${count}`).rejects.toThrow(RangeError);
    }
  });
});
