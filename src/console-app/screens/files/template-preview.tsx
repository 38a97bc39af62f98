import { useEffect, useState } from "hono/jsx/dom";
import { api, fetchFile, ok, type Schemas } from "../../api";
import { format, useText } from "../../i18n";
import { filesText } from "../../messages/files";
import { Problem, useLoad } from "../../ui/load";
import { Select } from "../../ui/form";

const PAGE = 100;

/**
 * The preview of a template (decisions.md 15 "The organiser console"): the service renders one ticket with sample
 * data on it (`GET .../preview`, optionally laid out by an event's ticket settings), fetched with the session's
 * header and shown from a blob: URL in a frame (the console's CSP allows blob: frames), with a link to open it.
 */
export function TemplatePreview({ template }: { template: Schemas["PdfTemplate"] }) {
  const t = useText(filesText);
  const events = useLoad(() => ok(api.GET("/ticketing/v1/admin/events", { params: { query: { per_page: String(PAGE), _fields: "id,event_name" } } })), []);
  const [eventId, setEventId] = useState("");
  const [url, setUrl] = useState<string | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);

  // A URL made for a blob holds it until revoked: the previous one goes when a new one comes, and on leaving.
  useEffect(
    () => () => {
      if (url) URL.revokeObjectURL(url);
    },
    [url],
  );

  const show = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const query = eventId ? `?event_id=${encodeURIComponent(eventId)}` : "";
      const blob = await fetchFile(`/ticketing/v1/admin/pdf-templates/${template.id}/preview${query}`);
      setUrl(URL.createObjectURL(blob));
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  const options = [
    { value: "", label: t.defaultLayout },
    ...(events.data ?? []).map((e) => ({ value: String(e.id), label: format(t.eventLayout, { name: e.event_name }) })),
  ];
  return (
    <section class="template-preview" aria-labelledby={`preview-${template.id}`}>
      <h2 id={`preview-${template.id}`}>{t.preview}</h2>
      <p class="hint">{t.previewHint}</p>
      <div class="preview-controls" onChange={(e: Event) => setEventId((e.target as HTMLSelectElement).value)}>
        <Select name="event_id" label={t.previewLayout} options={options} value={eventId} />
      </div>
      <div class="actions">
        <button type="button" aria-disabled={busy ? "true" : undefined} onClick={() => !busy && show()}>
          {t.showPreview}
        </button>
        {url && (
          <a href={url} target="_blank" rel="noopener">
            {t.openPreview}
          </a>
        )}
      </div>
      {error !== undefined && <Problem error={error} />}
      {url && <iframe class="pdf-preview" src={url} title={format(t.previewFrame, { name: template.title })} />}
    </section>
  );
}
