import { api, download, ok, type Schemas } from "../../api";
import { format, useText } from "../../i18n";
import { commonText } from "../../messages/common";
import { filesText } from "../../messages/files";
import { href, navigate } from "../../router";
import { Field, Form, type FormValues, Select } from "../../ui/form";
import { Show, useLoad } from "../../ui/load";
import { ActionButton, ConfirmButton, Heading } from "../../ui/page";
import { Table } from "../../ui/table";
import { multipart } from "./multipart";
import { TemplatePreview } from "./template-preview";

type PdfTemplate = Schemas["PdfTemplate"];

const TEMPLATES = "/ticketing/v1/admin/pdf-templates";
const fileOf = (id: number) => `${TEMPLATES}/${id}/file`;

function useTypeOptions() {
  const t = useText(filesText);
  return [
    { value: "ticket", label: t.typeTicket },
    { value: "invoice", label: t.typeInvoice },
  ] as const;
}

/** A template's type in the console's words (the API's own word for a type the console does not know). */
const typeLabel = (types: ReturnType<typeof useTypeOptions>, template: PdfTemplate) => types.find((o) => o.value === template.type)?.label ?? template.type;

/** An upload's or a change's multipart fields: the title, the type and the file (a change without one keeps its file). */
const templateBody = (values: FormValues) => ({ title: values.text("title"), type: values.text("type") as PdfTemplate["type"], file: values.file("file") });

/** A button that downloads the template's PDF with the session's header (api.ts `download`). */
function DownloadButton({ template, label }: { template: PdfTemplate; label: string }) {
  return <ActionButton label={label} onClick={() => download(fileOf(template.id), `template-${template.id}.pdf`)} />;
}

/** `#/pdf-templates`: the user's templates (an administrator's: all) and an upload (spec: PDF templates). */
export function PdfTemplates() {
  const t = useText(filesText);
  const c = useText(commonText);
  const types = useTypeOptions();
  const loaded = useLoad(() => ok(api.GET(TEMPLATES)), []);
  return (
    <>
      <Heading title={c.pdfTemplates}>{c.pdfTemplates}</Heading>
      <p>{t.templatesIntro}</p>
      <Show loaded={loaded}>
        {(templates) =>
          templates.length === 0 ? (
            <p>{t.noTemplates}</p>
          ) : (
            <Table
              caption={t.templatesCaption}
              rows={templates}
              columns={[
                { label: t.title, cell: (template) => <a href={href("/pdf-templates", template.id)}>{template.title}</a> },
                { label: t.type, cell: (template) => typeLabel(types, template) },
                { label: t.owner, cell: (template) => template.username },
                { label: t.changed, cell: (template) => template.modified },
                { label: c.actions, cell: (template) => <DownloadButton template={template} label={format(t.download, { name: template.title })} /> },
              ]}
            />
          )
        }
      </Show>
      <h2>{t.uploadTemplate}</h2>
      <Form
        label={t.uploadTemplate}
        submitLabel={t.upload}
        onSubmit={async (values, form) => {
          const body = templateBody(values);
          const created = await ok(api.POST(TEMPLATES, { body, bodySerializer: multipart(body) }));
          form.reset();
          loaded.reload();
          return `${t.uploaded} ${created.title}`;
        }}
      >
        <Field name="title" label={t.title} required maxLength={200} />
        <Select name="type" label={t.type} options={types} value="ticket" />
        <Field name="file" type="file" label={t.file} hint={t.fileHint} accept="application/pdf,.pdf" required />
      </Form>
    </>
  );
}

/** `#/pdf-templates/<id>`: one template: its details, a change of title, type or file, the preview, and delete. */
export function PdfTemplateScreen({ id }: { id: string }) {
  const t = useText(filesText);
  const c = useText(commonText);
  const types = useTypeOptions();
  const loaded = useLoad(() => ok(api.GET(`${TEMPLATES}/{id}`, { params: { path: { id } } })), [id]);
  return (
    <Show loaded={loaded}>
      {(template) => (
        <>
          <Heading title={template.title}>{template.title}</Heading>
          <p class="no-print">
            <a href={href("/pdf-templates")}>{t.allTemplates}</a>
          </p>
          <dl class="details">
            <dt>{t.type}</dt>
            <dd>{typeLabel(types, template)}</dd>
            <dt>{t.owner}</dt>
            <dd>{template.username}</dd>
            <dt>{t.changed}</dt>
            <dd>{template.modified}</dd>
          </dl>
          <div class="actions">
            <DownloadButton template={template} label={t.downloadFile} />
            <ConfirmButton
              label={t.deleteTemplate}
              question={format(c.confirmDelete, { name: template.title })}
              onConfirm={async () => {
                await ok(api.DELETE(`${TEMPLATES}/{id}`, { params: { path: { id } } }));
                navigate(href("/pdf-templates"));
              }}
            />
          </div>
          <TemplatePreview template={template} />
          <h2>{t.changeTemplate}</h2>
          <Form
            label={t.changeTemplate}
            submitLabel={c.save}
            onSubmit={async (values, form) => {
              const body = templateBody(values);
              await ok(api.PUT(`${TEMPLATES}/{id}`, { params: { path: { id } }, body, bodySerializer: multipart(body) }));
              // Only the file input is emptied: the title and type now show what was saved.
              const file = form.elements.namedItem("file");
              if (file instanceof HTMLInputElement) file.value = "";
              loaded.reload();
              return c.saved;
            }}
          >
            <Field name="title" label={t.title} value={template.title} required maxLength={200} />
            <Select name="type" label={t.type} options={types} value={template.type} />
            <Field name="file" type="file" label={t.newFile} hint={t.newFileHint} accept="application/pdf,.pdf" />
          </Form>
        </>
      )}
    </Show>
  );
}
