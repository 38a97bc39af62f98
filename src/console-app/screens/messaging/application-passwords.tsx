import { useState } from "hono/jsx/dom";
import type { Child } from "hono/jsx/dom";
import { api, ok } from "../../api";
import { format, useText } from "../../i18n";
import { commonText } from "../../messages/common";
import { messagingText } from "../../messages/messaging";
import { Field, Form } from "../../ui/form";
import { Show, useLoad } from "../../ui/load";
import { announce } from "../../ui/status";
import { RowActions, Table } from "../../ui/table";
import { When } from "./shared";

/**
 * A user's application passwords: the list (never the passwords), a new one, and revoking one. Revoking the one this
 * console signed in with ends the session (decisions.md 15): the next call answers 401 and the console signs out.
 */
export function ApplicationPasswords({ userId }: { userId: string }) {
  const t = useText(messagingText);
  const c = useText(commonText);
  const loaded = useLoad(() => ok(api.GET("/ticketing/v1/admin/users/{id}/application-passwords", { params: { path: { id: userId } } })), [userId]);
  const [created, setCreated] = useState<{ name: string; password: string } | undefined>(undefined);
  return (
    <section aria-labelledby="application-passwords">
      <h2 id="application-passwords">{t.applicationPasswords}</h2>
      <Show loaded={loaded}>
        {(passwords) =>
          passwords.length === 0 ? (
            <p>{t.noPasswords}</p>
          ) : (
            <Table
              caption={t.applicationPasswords}
              rows={passwords}
              columns={[
                { label: t.name, cell: (p) => p.name || "–" },
                { label: t.created, cell: (p) => <When at={p.created_at} /> },
                { label: t.lastUsed, cell: (p) => <When at={p.last_used_at} /> },
                {
                  label: c.actions,
                  cell: (p) => (
                    <RowActions
                      deleteLabel={format(t.revokeNamed, { name: p.name || p.uuid })}
                      question={format(t.confirmRevoke, { name: p.name || p.uuid })}
                      onDelete={async () => {
                        await ok(api.DELETE("/ticketing/v1/admin/users/{id}/application-passwords/{uuid}", { params: { path: { id: userId, uuid: p.uuid } } }));
                        announce(t.revoked);
                        loaded.reload();
                      }}
                    />
                  ),
                },
              ]}
            />
          )
        }
      </Show>
      {created && <NewPassword password={created.password} title={format(t.newPasswordNamed, { name: created.name })} />}
      <h3>{t.newPassword}</h3>
      <Form
        label={t.newPassword}
        submitLabel={t.createPassword}
        onSubmit={async (values, form) => {
          const name = values.text("name");
          const answer = await ok(api.POST("/ticketing/v1/admin/users/{id}/application-passwords", { params: { path: { id: userId } }, body: { name } }));
          setCreated({ name, password: answer.application_password });
          form.reset();
          loaded.reload();
          return t.passwordCreated;
        }}
      >
        <Field name="name" label={t.passwordName} hint={t.passwordNameHint} required maxLength={200} autocomplete="off" />
      </Form>
    </section>
  );
}

/**
 * A password the API shows this once (ticketing-api.md, users): in a read-only field the user can select and copy,
 * with the warning that it will not be shown again.
 */
export function NewPassword({ password, title, children }: { password: string; title: string; children?: Child }) {
  const t = useText(messagingText);
  return (
    <section class="new-password" aria-labelledby="new-password-title">
      <h2 id="new-password-title">{title}</h2>
      <p id="new-password-note" class="notice">
        {t.shownOnce}
      </p>
      <div class="field">
        <label for="new-password-value">{t.thePassword}</label>
        <input
          id="new-password-value"
          type="text"
          readOnly
          value={password}
          aria-describedby="new-password-note"
          autocomplete="off"
          spellcheck={false}
          onFocus={(e: Event) => (e.currentTarget as HTMLInputElement).select()}
        />
      </div>
      {children}
    </section>
  );
}
