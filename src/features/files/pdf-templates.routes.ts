import { Hono } from "hono";
import type { AppEnv } from "../../http/context";
import { describeRoute } from "../../http/route-docs";
import { depsOf } from "../../http/deps";
import { withoutLinks } from "../../http/links";
import { collection, created, deleted, ok } from "../../http/respond";
import { assertReadOnlyUnchanged, formBody, isMultipart, jsonOrForm, pathId, query, updateBody } from "../../http/validate";
import {
  createPdfTemplateForm,
  PDF_TEMPLATE_READ_ONLY,
  previewPdfTemplateQuery,
  presentPdfTemplate,
  updatePdfTemplateForm,
  updatePdfTemplateJson,
  pdfTemplatesApi,
} from "./pdf-templates.schema";
import { previewPdfTemplate } from "./pdf-template-preview.service";
import { createPdfTemplate, deletePdfTemplate, getPdfTemplateFor, listPdfTemplates, pdfTemplateFile, updatePdfTemplate } from "./pdf-templates.service";

/** `/admin/pdf-templates` (spec: PDF templates): an administrator sees all, other users their own. */
export const pdfTemplatesRoutes = new Hono<AppEnv>()
  .get("/", describeRoute(pdfTemplatesApi.list), async (c) => {
    const deps = depsOf(c);
    const rows = await listPdfTemplates(deps, c.var.user);
    return collection(
      c,
      rows.map((r) => presentPdfTemplate(c, r.template, r.username, deps.config.timezone)),
    );
  })

  .post("/", describeRoute(pdfTemplatesApi.create), formBody(createPdfTemplateForm), async (c) => {
    const deps = depsOf(c);
    const { template, username } = await createPdfTemplate(deps, c.var.user, c.req.valid("form"));
    return created(c, presentPdfTemplate(c, template, username, deps.config.timezone), `/admin/pdf-templates/${template.id}`);
  })

  .get("/:id", describeRoute(pdfTemplatesApi.get), pathId("pdf_template"), async (c) => {
    const deps = depsOf(c);
    const { template, username } = await getPdfTemplateFor(deps, c.var.user, c.req.valid("param").id);
    return ok(c, presentPdfTemplate(c, template, username, deps.config.timezone));
  })

  .get("/:id/file", describeRoute(pdfTemplatesApi.file), pathId("pdf_template"), async (c) => {
    const deps = depsOf(c);
    const { template } = await getPdfTemplateFor(deps, c.var.user, c.req.valid("param").id);
    const file = await pdfTemplateFile(deps, template);
    return c.body(file.body, 200, {
      "Content-Type": "application/pdf",
      "Content-Length": String(file.size),
      "Content-Disposition": `inline; filename="template-${template.id}.pdf"`,
    });
  })

  .get("/:id/preview", describeRoute(pdfTemplatesApi.preview), pathId("pdf_template"), query(previewPdfTemplateQuery), async (c) => {
    const bytes = await previewPdfTemplate(depsOf(c), c.var.user, c.req.valid("param").id, c.req.valid("query").event_id);
    return c.body(bytes as Uint8Array<ArrayBuffer>, 200, {
      "Content-Type": "application/pdf",
      "Content-Disposition": `inline; filename="template-${c.req.valid("param").id}-preview.pdf"`,
      "Cache-Control": "no-store",
    });
  })

  .put(
    "/:id",
    describeRoute(pdfTemplatesApi.update),
    pathId("pdf_template"),
    jsonOrForm(updateBody(updatePdfTemplateJson, PDF_TEMPLATE_READ_ONLY), formBody(updatePdfTemplateForm)),
    async (c) => {
      const deps = depsOf(c);
      const { template, username } = await getPdfTemplateFor(deps, c.var.user, c.req.valid("param").id);
      let changes;
      if (isMultipart(c)) {
        changes = c.req.valid("form");
      } else {
        const { patch, readOnlySent } = c.req.valid("json");
        assertReadOnlyUnchanged(readOnlySent, presentPdfTemplate(c, template, username, deps.config.timezone));
        changes = patch;
      }
      const updated = await updatePdfTemplate(deps, c.var.user, template, changes);
      return ok(c, presentPdfTemplate(c, updated.template, updated.username, deps.config.timezone));
    },
  )

  .delete("/:id", describeRoute(pdfTemplatesApi.delete), pathId("pdf_template"), async (c) => {
    const deps = depsOf(c);
    const { template, username } = await getPdfTemplateFor(deps, c.var.user, c.req.valid("param").id);
    await deletePdfTemplate(deps, template);
    return deleted(c, withoutLinks(presentPdfTemplate(c, template, username, deps.config.timezone)));
  });
