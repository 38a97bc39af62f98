import { encodeGrayPng } from "./png";

/**
 * The images an Apple Wallet pass must carry (decisions.md 15 "Wallet passes"): `icon.png` (29 x 29 points, shown
 * on the lock screen and in mail), its 2x, and `logo.png` (at most 160 x 50). A plain ticket shape, drawn here, so the
 * service ships no binary assets: a dark rounded card with a light perforation line.
 */

function ticketShape(width: number, height: number): Uint8Array {
  const pixels = new Uint8Array(width * height).fill(255);
  const inset = Math.max(1, Math.round(height / 8));
  const perforation = Math.round(width * 0.7);
  for (let y = inset; y < height - inset; y++) {
    for (let x = inset; x < width - inset; x++) {
      const onLine = Math.abs(x - perforation) < Math.max(1, width / 40) && Math.floor(y / Math.max(2, height / 8)) % 2 === 0;
      pixels[y * width + x] = onLine ? 255 : 32;
    }
  }
  return pixels;
}

async function image(width: number, height: number): Promise<Uint8Array<ArrayBuffer>> {
  return encodeGrayPng({ width, height, pixels: ticketShape(width, height) });
}

async function draw(): Promise<Record<string, Uint8Array<ArrayBuffer>>> {
  return { "icon.png": await image(29, 29), "icon@2x.png": await image(58, 58), "logo.png": await image(100, 50) };
}

let drawn: Promise<Record<string, Uint8Array<ArrayBuffer>>> | undefined;

/**
 * The pass's image files by name. They never change, so they are drawn once per isolate rather than for every pass;
 * callers only read them (the zip copies them).
 */
export function passImages(): Promise<Record<string, Uint8Array<ArrayBuffer>>> {
  drawn ??= draw();
  return drawn;
}
