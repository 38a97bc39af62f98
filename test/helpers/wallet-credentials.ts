import * as asn1js from "asn1js";
import * as pkijs from "pkijs";

/**
 * Throwaway Apple Wallet credentials, made afresh with WebCrypto and PKI.js (never real ones): a root, a WWDR-like
 * intermediate it signs, and a pass certificate the intermediate signs, with the pass key as PKCS#8 PEM, as
 * `APPLE_PASS_CERT`, `APPLE_PASS_KEY` and `APPLE_WWDR_CERT` hold them.
 */

const RSA = { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" } as const;

function pem(label: string, der: ArrayBuffer): string {
  let s = "";
  for (const b of new Uint8Array(der)) s += String.fromCharCode(b);
  const body = btoa(s).replace(/(.{64})/g, "$1\n");
  return `-----BEGIN ${label}-----\n${body}\n-----END ${label}-----\n`;
}

function name(commonName: string): pkijs.RelativeDistinguishedNames {
  return new pkijs.RelativeDistinguishedNames({
    typesAndValues: [new pkijs.AttributeTypeAndValue({ type: "2.5.4.3", value: new asn1js.Utf8String({ value: commonName }) })],
  });
}

interface Issued {
  certificate: pkijs.Certificate;
  keys: CryptoKeyPair;
}

async function issue(commonName: string, serial: number, ca: boolean, issuer: Issued | null): Promise<Issued> {
  const keys = (await crypto.subtle.generateKey(RSA, true, ["sign", "verify"])) as CryptoKeyPair;
  const certificate = new pkijs.Certificate();
  certificate.version = 2;
  certificate.serialNumber = new asn1js.Integer({ value: serial });
  certificate.subject = name(commonName);
  certificate.issuer = issuer ? issuer.certificate.subject : certificate.subject;
  certificate.notBefore.value = new Date(Date.now() - 86_400_000);
  certificate.notAfter.value = new Date(Date.now() + 365 * 86_400_000);
  certificate.extensions = [
    new pkijs.Extension({
      extnID: "2.5.29.19",
      critical: true,
      extnValue: new pkijs.BasicConstraints({ cA: ca }).toSchema().toBER(false),
      parsedValue: new pkijs.BasicConstraints({ cA: ca }),
    }),
  ];
  await certificate.subjectPublicKeyInfo.importKey(keys.publicKey);
  await certificate.sign((issuer ?? { keys }).keys.privateKey, "SHA-256");
  return { certificate, keys };
}

export interface WalletCredentials {
  rootPem: string;
  wwdrPem: string;
  certPem: string;
  keyPem: string;
  root: pkijs.Certificate;
}

export async function walletCredentials(): Promise<WalletCredentials> {
  const root = await issue("Throwaway Test Root", 1, true, null);
  const wwdr = await issue("Throwaway WWDR-like Intermediate", 2, true, root);
  const pass = await issue("Pass Type ID: pass.test.throwaway", 3, false, wwdr);
  return {
    rootPem: pem("CERTIFICATE", root.certificate.toSchema().toBER(false)),
    wwdrPem: pem("CERTIFICATE", wwdr.certificate.toSchema().toBER(false)),
    certPem: pem("CERTIFICATE", pass.certificate.toSchema().toBER(false)),
    keyPem: pem("PRIVATE KEY", (await crypto.subtle.exportKey("pkcs8", pass.keys.privateKey)) as ArrayBuffer),
    root: root.certificate,
  };
}

/** The five Apple Wallet settings with `creds`, as overrides of the test env (helpers/limited.ts `fetchWith`). */
export function appleWalletSettings(creds: WalletCredentials): Record<string, string> {
  return {
    APPLE_PASS_CERT: creds.certPem,
    APPLE_PASS_KEY: creds.keyPem,
    APPLE_WWDR_CERT: creds.wwdrPem,
    APPLE_PASS_TYPE_ID: "pass.test.throwaway",
    APPLE_TEAM_ID: "TEAM123456",
  };
}
