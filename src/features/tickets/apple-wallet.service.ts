import type { AppleWalletConfig } from "../../config";
import { fail } from "../../domain/errors";
import { ticketTypeLabel } from "../../domain/seat-plan";
import { importSigner, type Pkcs7Signer, signDetached } from "../../lib/pkcs7-signature";
import { passImages } from "../../lib/pass-images";
import { packPass, passJson } from "../../lib/pkpass";
import { qrPayload, signerFor } from "../../lib/ticket-codes";
import { isoDateTimeWithOffset } from "../../lib/time";
import type { Deps } from "../../platform/deps";
import { eventDateText } from "./ticket-pdf-render.service";
import { passSubject } from "./wallet-ticket";

const signers = new WeakMap<AppleWalletConfig, Promise<Pkcs7Signer>>();

/** One imported signer per configuration (per isolate): the PEMs are parsed and the key imported once. */
function signerOf(config: AppleWalletConfig): Promise<Pkcs7Signer> {
  let signer = signers.get(config);
  if (!signer) {
    signer = importSigner(config.certificatePem, config.keyPem, [config.wwdrPem]);
    // A setting that does not read is not kept: the next request tries again (and fails alike until it is fixed).
    signer.catch(() => signers.delete(config));
    signers.set(config, signer);
  }
  return signer;
}

/**
 * `GET /tickets/<uid>/<ticket_id>/wallet.pkpass` (decisions.md 15 "Wallet passes"): the ticket as an Apple Wallet
 * pass, whose QR barcode is the ticket's signed code (the PDF's), so the scan and the door app's offline decision
 * admit it. Which tickets get one: passSubject. Unconfigured: `404 wallet_not_configured`.
 */
export async function applePass(deps: Deps, uid: string, ticketId: string): Promise<Uint8Array<ArrayBuffer>> {
  const wallet = deps.config.appleWallet;
  if (!wallet) throw fail.wallet_not_configured("Apple Wallet passes are not configured on this service.");
  const { order, ticket, event } = await passSubject(deps, uid, ticketId);

  const pass = passJson({
    passTypeIdentifier: wallet.passTypeId,
    teamIdentifier: wallet.teamId,
    serialNumber: ticket.id,
    organizationName: deps.config.email.fromName,
    description: `Ticket: ${event.eventName}`,
    eventName: event.eventName,
    dateText: eventDateText(event),
    relevantDate: event.eventDate === null ? null : isoDateTimeWithOffset(event.eventDate, event.timezone),
    location: "",
    typeText: ticketTypeLabel(ticket),
    holderName: order.name,
    barcodeMessage: await qrPayload(signerFor(deps.config.ticketSigningKeys), ticket),
  });
  const signer = await signerOf(wallet);
  const files = { "pass.json": new Uint8Array(new TextEncoder().encode(JSON.stringify(pass))), ...(await passImages()) };
  return packPass(files, (manifest) => signDetached(signer, manifest, new Date(deps.now() * 1000)));
}
