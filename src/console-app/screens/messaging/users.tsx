import { useState } from "hono/jsx/dom";
import { api, ok, okPage, type Schemas } from "../../api";
import { format, useText } from "../../i18n";
import { commonText } from "../../messages/common";
import { messagingText } from "../../messages/messaging";
import { href, navigate } from "../../router";
import { Field, Form, type FormValues, Select, useFieldError } from "../../ui/form";
import { Show, useLoad } from "../../ui/load";
import { ConfirmButton, Heading } from "../../ui/page";
import { announce } from "../../ui/status";
import { Table } from "../../ui/table";
import { ApplicationPasswords, NewPassword } from "./application-passwords";
import { Details, ShowDetail, When, RecordHeading } from "./shared";

type User = Schemas["User"];
type Role = User["role"];
type EventChoice = { id: number; event_name: string };

/** Every event the administrator sees, for the authorised-events checkboxes (the API pages them by 100 at most). */
async function allEvents(): Promise<EventChoice[]> {
  const events: EventChoice[] = [];
  for (let page = 1; page <= 50; page++) {
    const answer = await okPage(api.GET("/ticketing/v1/admin/events", { params: { query: { per_page: "100", page: String(page), _fields: "id,event_name" } } }));
    events.push(...(answer.items as EventChoice[]));
    if (page >= answer.pages) break;
  }
  return events;
}

/** `#/users`: every user (administrators only, decisions.md 13), and a new one with its first password. */
export function UserList() {
  const t = useText(messagingText);
  const c = useText(commonText);
  const loaded = useLoad(() => ok(api.GET("/ticketing/v1/admin/users")), []);
  const events = useLoad(allEvents, []);
  const [created, setCreated] = useState<{ id: number; username: string; password: string } | undefined>(undefined);
  return (
    <>
      <Heading title={c.users}>{c.users}</Heading>
      <Show loaded={loaded}>
        {(users) => (
          <Table
            caption={c.users}
            rows={users}
            columns={[
              { label: t.username, cell: (user) => <a href={href("/users", user.id)}>{user.username}</a> },
              { label: t.name, cell: (user) => user.name },
              { label: t.email, wrap: true, cell: (user) => user.email },
              { label: t.role, cell: (user) => t[`role_${user.role}`] },
              { label: t.authorisedEvents, cell: (user) => (user.role === "administrator" ? t.allEvents : user.authorised_events.join(", ") || "–") },
            ]}
          />
        )}
      </Show>
      {created && (
        <NewPassword password={created.password} title={format(t.firstPasswordOf, { name: created.username })}>
          <a href={href("/users", created.id)}>{format(t.openUser, { name: created.username })}</a>
        </NewPassword>
      )}
      <h2>{t.newUser}</h2>
      <Form
        label={t.newUser}
        submitLabel={c.create}
        onSubmit={async (values, form) => {
          const user = await ok(
            api.POST("/ticketing/v1/admin/users", {
              body: {
                username: values.text("username"),
                email: values.text("email"),
                name: values.optionalText("name"),
                role: roleOf(values),
                authorised_events: eventsOf(values),
              },
            }),
          );
          setCreated({ id: user.id, username: user.username, password: user.application_password });
          form.reset();
          loaded.reload();
          return c.created;
        }}
      >
        <Field name="username" label={t.username} hint={t.usernameHint} required autocomplete="off" />
        <UserFields events={events.data} />
      </Form>
    </>
  );
}

const roleOf = (values: FormValues) => (values.text("role") === "administrator" ? "administrator" : "organizer") satisfies Role;
const eventsOf = (values: FormValues) => values.all("authorised_events").map(Number);

function UserFields({ user, events }: { user?: User; events: EventChoice[] | undefined }) {
  const t = useText(messagingText);
  return (
    <>
      <Field name="email" type="email" label={t.email} value={user?.email} required autocomplete="off" />
      <Field name="name" label={t.name} value={user?.name} autocomplete="off" />
      <Select
        name="role"
        label={t.role}
        value={user?.role ?? "organizer"}
        options={[
          { value: "organizer", label: t.role_organizer },
          { value: "administrator", label: t.role_administrator },
        ]}
      />
      <EventChecks events={events} chosen={user?.authorised_events ?? []} />
    </>
  );
}

/** The authorised events as checkboxes under one legend; the API's text about them shows beneath. */
function EventChecks({ events, chosen }: { events: EventChoice[] | undefined; chosen: readonly number[] }) {
  const t = useText(messagingText);
  const c = useText(commonText);
  const error = useFieldError("authorised_events");
  return (
    <fieldset class={error ? "has-error" : undefined} aria-describedby="authorised-events-hint">
      <legend>{t.authorisedEvents}</legend>
      <p id="authorised-events-hint" class="hint">
        {t.authorisedEventsHint}
      </p>
      {events === undefined ? (
        <p class="loading">{c.loading}</p>
      ) : events.length === 0 ? (
        <p>{t.noEvents}</p>
      ) : (
        <div class="event-checks">
          {events.map((event) => (
            <div class="field check">
              <input type="checkbox" id={`authorised-event-${event.id}`} name="authorised_events" value={String(event.id)} checked={chosen.includes(event.id)} />
              <label for={`authorised-event-${event.id}`}>{`${event.event_name} (${event.id})`}</label>
            </div>
          ))}
        </div>
      )}
      {error && <p class="error">{error}</p>}
    </fieldset>
  );
}

/** `#/users/<id>`: the user, its change and deletion, and its application passwords. */
export function UserPage({ id }: { id: string }) {
  const t = useText(messagingText);
  const c = useText(commonText);
  const loaded = useLoad(() => ok(api.GET("/ticketing/v1/admin/users/{id}", { params: { path: { id } } })), [id]);
  const events = useLoad(allEvents, []);
  return (
    <ShowDetail loaded={loaded} title={format(t.userTitle, { name: id })}>
      {(user) => (
        <>
          <RecordHeading title={format(t.userTitle, { name: user.username })} back={href("/users")} backLabel={t.allUsers} />
          <Details rows={[[t.created, <When at={user.created} />]]} />
          <h2>{t.changeUser}</h2>
          <Form
            label={t.changeUser}
            submitLabel={c.save}
            onSubmit={async (values) => {
              await ok(
                api.PUT("/ticketing/v1/admin/users/{id}", {
                  params: { path: { id } },
                  body: { email: values.text("email"), name: values.text("name"), role: roleOf(values), authorised_events: eventsOf(values) },
                }),
              );
              loaded.reload();
              return c.saved;
            }}
          >
            <UserFields user={user} events={events.data} />
          </Form>
          <div class="actions">
            <ConfirmButton
              label={t.deleteUser}
              question={format(c.confirmDelete, { name: user.username })}
              onConfirm={async () => {
                await ok(api.DELETE("/ticketing/v1/admin/users/{id}", { params: { path: { id } } }));
                announce(c.deleted);
                navigate(href("/users"));
              }}
            />
          </div>
          <ApplicationPasswords userId={id} />
        </>
      )}
    </ShowDetail>
  );
}
