import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import { pemBlock } from "./pem";

/**
 * Detached PKCS#7 (CMS, RFC 5652) SignedData in DER, as an Apple Wallet pass's `signature` file is (decisions.md 15
 * "Wallet passes"): RSA PKCS#1 v1.5 with SHA-256 over the content, the signing time, the signer's certificate and
 * the intermediates carried. Made with PKI.js on WebCrypto, so it runs alike in workerd and in Node; no hand-written
 * ASN.1. Pure apart from WebCrypto.
 */

const OID = {
  data: "1.2.840.113549.1.7.1",
  signedData: "1.2.840.113549.1.7.2",
  contentType: "1.2.840.113549.1.9.3",
  messageDigest: "1.2.840.113549.1.9.4",
  signingTime: "1.2.840.113549.1.9.5",
} as const;

export interface Pkcs7Signer {
  certificate: pkijs.Certificate;
  chain: pkijs.Certificate[];
  key: CryptoKey;
}

/**
 * The signer from PEM texts: a certificate, its PKCS#8 RSA key and the intermediates to carry. Throws a RangeError
 * naming the part that does not read (never its value).
 */
export async function importSigner(certificatePem: string, keyPem: string, chainPems: readonly string[]): Promise<Pkcs7Signer> {
  const certificate = readCertificate(certificatePem, "certificate");
  const chain = chainPems.map((pem, i) => readCertificate(pem, `chain certificate ${i + 1}`));
  const der = pemBlock(keyPem, "PRIVATE KEY");
  if (!der) throw new RangeError("the key is not a PEM PKCS#8 private key");
  let key: CryptoKey;
  try {
    key = await crypto.subtle.importKey("pkcs8", der, { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, false, ["sign"]);
  } catch {
    throw new RangeError("the key is not an RSA PKCS#8 private key");
  }
  return { certificate, chain, key };
}

function readCertificate(pem: string, what: string): pkijs.Certificate {
  const der = pemBlock(pem, "CERTIFICATE");
  if (!der) throw new RangeError(`the ${what} is not a PEM certificate`);
  try {
    return pkijs.Certificate.fromBER(der);
  } catch {
    throw new RangeError(`the ${what} is not a readable certificate`);
  }
}

/** The detached SignedData over `content`, as DER (a ContentInfo), signed at `signedAt`. */
export async function signDetached(signer: Pkcs7Signer, content: Uint8Array<ArrayBuffer>, signedAt: Date): Promise<Uint8Array<ArrayBuffer>> {
  const digest = await crypto.subtle.digest("SHA-256", content);
  const signed = new pkijs.SignedData({
    version: 1,
    encapContentInfo: new pkijs.EncapsulatedContentInfo({ eContentType: OID.data }),
    signerInfos: [
      new pkijs.SignerInfo({
        version: 1,
        sid: new pkijs.IssuerAndSerialNumber({ issuer: signer.certificate.issuer, serialNumber: signer.certificate.serialNumber }),
        signedAttrs: new pkijs.SignedAndUnsignedAttributes({
          type: 0,
          attributes: [
            new pkijs.Attribute({ type: OID.contentType, values: [new asn1js.ObjectIdentifier({ value: OID.data })] }),
            new pkijs.Attribute({ type: OID.signingTime, values: [new asn1js.UTCTime({ valueDate: signedAt })] }),
            new pkijs.Attribute({ type: OID.messageDigest, values: [new asn1js.OctetString({ valueHex: digest })] }),
          ],
        }),
      }),
    ],
    certificates: [signer.certificate, ...signer.chain],
  });
  await signed.sign(signer.key, 0, "SHA-256", content);
  const info = new pkijs.ContentInfo({ contentType: OID.signedData, content: signed.toSchema(true) });
  return new Uint8Array(info.toSchema().toBER(false));
}
