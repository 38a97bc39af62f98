import { zipSync } from "fflate";

/**
 * An Apple Wallet pass package (Apple's "Wallet Developer Guide", decisions.md 15 "Wallet passes"): a zip of
 * `pass.json`, images, `manifest.json` (each other file's SHA-1, hex) and `signature` (a detached PKCS#7 over the
 * manifest, made by the caller's `sign`). Pure apart from WebCrypto.
 */

export interface EventTicketPass {
  passTypeIdentifier: string;
  teamIdentifier: string;
  serialNumber: string;
  organizationName: string;
  description: string;
  eventName: string;
  /** The date as the event shows it, in its own zone; "" when it has none. */
  dateText: string;
  /** ISO 8601 with offset; null when the event has no date. */
  relevantDate: string | null;
  location: string;
  typeText: string;
  holderName: string;
  /** The ticket's signed code (the PDF's QR code), the barcode message. */
  barcodeMessage: string;
}

/** `pass.json` of an `eventTicket` pass. */
export function passJson(p: EventTicketPass): Record<string, unknown> {
  const secondary = [
    ...(p.dateText === "" ? [] : [{ key: "date", label: "Date", value: p.dateText }]),
    ...(p.location === "" ? [] : [{ key: "location", label: "Location", value: p.location }]),
  ];
  return {
    formatVersion: 1,
    passTypeIdentifier: p.passTypeIdentifier,
    teamIdentifier: p.teamIdentifier,
    serialNumber: p.serialNumber,
    organizationName: p.organizationName,
    description: p.description,
    ...(p.relevantDate === null ? {} : { relevantDate: p.relevantDate }),
    eventTicket: {
      primaryFields: [{ key: "event", label: "Event", value: p.eventName }],
      secondaryFields: secondary,
      auxiliaryFields: [
        { key: "type", label: "Ticket", value: p.typeText },
        { key: "holder", label: "Name", value: p.holderName },
      ],
    },
    barcodes: [{ format: "PKBarcodeFormatQR", message: p.barcodeMessage, messageEncoding: "iso-8859-1", altText: p.serialNumber }],
  };
}

async function sha1Hex(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-1", bytes));
  return [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * The package: `files` (pass.json and images), their manifest, and the manifest's signature. Stored without
 * compression: the images are already deflated and the rest is small.
 */
export async function packPass(
  files: Record<string, Uint8Array<ArrayBuffer>>,
  sign: (manifest: Uint8Array<ArrayBuffer>) => Promise<Uint8Array<ArrayBuffer>>,
): Promise<Uint8Array<ArrayBuffer>> {
  const manifest: Record<string, string> = {};
  for (const [name, bytes] of Object.entries(files)) manifest[name] = await sha1Hex(bytes);
  const manifestBytes = new Uint8Array(new TextEncoder().encode(JSON.stringify(manifest)));
  const signature = await sign(manifestBytes);
  const zipped = zipSync({ ...files, "manifest.json": manifestBytes, signature }, { level: 0 });
  return new Uint8Array(zipped);
}
