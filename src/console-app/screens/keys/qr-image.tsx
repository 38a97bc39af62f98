import { useEffect, useState } from "hono/jsx/dom";
import { fetchFile } from "../../api";
import { useText } from "../../i18n";
import { commonText } from "../../messages/common";
import { Problem } from "../../ui/load";

/**
 * A scan key's QR code for the door app (docs/scanning.md "A scan key's QR code for the door app"). Fetched with the
 * session's CSRF header (a plain <img src> would go without it and be refused, decisions.md 15) and shown from a
 * blob: address, dropped again when the image leaves the screen: the image carries the key.
 */
export function QrImage({ eventId, scanKey, alt }: { eventId: number; scanKey: string; alt: string }) {
  const t = useText(commonText);
  const [src, setSrc] = useState<string | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  useEffect(() => {
    let live = true;
    let url: string | undefined;
    fetchFile(`/ticketing/v1/admin/events/${eventId}/scan-keys/${encodeURIComponent(scanKey)}/qr`).then(
      (blob) => {
        if (!live) return;
        url = URL.createObjectURL(blob);
        setSrc(url);
      },
      (failure: unknown) => live && setError(failure),
    );
    return () => {
      live = false;
      if (url) URL.revokeObjectURL(url);
    };
  }, [eventId, scanKey]);
  if (error !== undefined) return <Problem error={error} />;
  if (src === undefined)
    return (
      <span class="loading" aria-busy="true">
        {t.loading}
      </span>
    );
  return <img class="qr" src={src} alt={alt} />;
}
