import { unzipSync } from "fflate";
import * as pkijs from "pkijs";
import { describe, expect, it } from "vitest";
import { passImages } from "../../src/lib/pass-images";
import { pemBlock } from "../../src/lib/pem";
import { importSigner, signDetached } from "../../src/lib/pkcs7-signature";
import { packPass, passJson } from "../../src/lib/pkpass";
import { walletCredentials } from "../helpers/wallet-credentials";

/** The Apple Wallet pass helpers (decisions.md 15 "Wallet passes"): pass.json, the package and its PKCS#7 signature. */

const base = {
  passTypeIdentifier: "pass.test",
  teamIdentifier: "T1",
  serialNumber: "AAAAAAAAAAAAAAAA",
  organizationName: "Tickets",
  description: "Ticket: Concert",
  eventName: "Concert",
  dateText: "",
  relevantDate: null,
  location: "",
  typeText: "Regular",
  holderName: "Ada",
  barcodeMessage: "test1.7.AAAAAAAAAAAAAAAA.sig",
};

const bytes = (text: string) => new Uint8Array(new TextEncoder().encode(text));

describe("passJson", () => {
  it("leaves out the date, location and relevantDate an event does not have", () => {
    const pass = passJson(base);
    expect(pass).not.toHaveProperty("relevantDate");
    expect((pass.eventTicket as { secondaryFields: unknown[] }).secondaryFields).toEqual([]);
    expect(pass.barcodes).toEqual([{ format: "PKBarcodeFormatQR", message: base.barcodeMessage, messageEncoding: "iso-8859-1", altText: base.serialNumber }]);
  });

  it("shows them when given", () => {
    const pass = passJson({ ...base, dateText: "04/07/2031", relevantDate: "2031-07-04T21:15:00+02:00", location: "Hall" });
    expect(pass.relevantDate).toBe("2031-07-04T21:15:00+02:00");
    expect((pass.eventTicket as { secondaryFields: { key: string }[] }).secondaryFields.map((f) => f.key)).toEqual(["date", "location"]);
  });
});

describe("packPass", () => {
  it("zips the files, a manifest of their SHA-1s, and the signature of exactly the manifest's bytes", async () => {
    let signed: Uint8Array | null = null;
    const zip = await packPass({ "pass.json": bytes("{}"), ...(await passImages()) }, async (m) => {
      signed = m;
      return bytes("sig");
    });
    const files = unzipSync(zip);
    expect(Object.keys(files).sort()).toEqual(["icon.png", "icon@2x.png", "logo.png", "manifest.json", "pass.json", "signature"]);
    expect(signed).toEqual(files["manifest.json"]);
    // SHA-1 of "{}".
    expect(JSON.parse(new TextDecoder().decode(files["manifest.json"]))["pass.json"]).toBe("bf21a9e8fbc5a3846fb05b4fa0859e0917b2202f");
  });
});

describe("pkcs7-signature", () => {
  it("reads a PEM block, and nothing else", () => {
    expect(pemBlock("-----BEGIN CERTIFICATE-----\nAQID\n-----END CERTIFICATE-----\n", "CERTIFICATE")).toEqual(new Uint8Array([1, 2, 3]));
    expect(pemBlock("-----BEGIN CERTIFICATE-----\nAQID\n-----END CERTIFICATE-----", "PRIVATE KEY")).toBeNull();
    expect(pemBlock("no pem", "CERTIFICATE")).toBeNull();
  });

  it("names the part that does not read, never its value", async () => {
    const c = await walletCredentials();
    await expect(importSigner(c.certPem, "-----BEGIN PRIVATE KEY-----\nAQID\n-----END PRIVATE KEY-----", [c.wwdrPem])).rejects.toThrow(/the key is not an RSA/);
    await expect(importSigner("garbage", c.keyPem, [])).rejects.toThrow(/the certificate is not a PEM certificate/);
  });

  it("signs detached content that verifies against the root, with the signing time", async () => {
    const c = await walletCredentials();
    const signer = await importSigner(c.certPem, c.keyPem, [c.wwdrPem]);
    const at = new Date("2031-01-02T03:04:05Z");
    const der = await signDetached(signer, bytes("manifest"), at);
    const signed = new pkijs.SignedData({ schema: pkijs.ContentInfo.fromBER(der).content });
    expect(await signed.verify({ signer: 0, data: bytes("manifest").buffer, trustedCerts: [c.root], checkChain: true })).toBe(true);
    const time = signed.signerInfos[0]!.signedAttrs!.attributes.find((a) => a.type === "1.2.840.113549.1.9.5")!;
    expect((time.values[0] as unknown as { toDate(): Date }).toDate().toISOString()).toBe(at.toISOString());
  });
});
