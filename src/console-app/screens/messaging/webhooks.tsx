import { useState } from "hono/jsx/dom";
import { WEBHOOK_TOPICS } from "../../../domain/webhook-topics";
import { api, ok, type Schemas } from "../../api";
import { format, useText } from "../../i18n";
import { commonText } from "../../messages/common";
import { messagingText } from "../../messages/messaging";
import { href, navigate } from "../../router";
import { Check, Field, Form, type FormValues, Select } from "../../ui/form";
import { Problem, Show, useLoad } from "../../ui/load";
import { ConfirmButton, Heading } from "../../ui/page";
import { announce } from "../../ui/status";
import { Table } from "../../ui/table";
import { Deliveries } from "./deliveries";
import { BodyText, Details, HeadersText, ShowDetail, When, RecordHeading } from "./shared";

type Webhook = Schemas["Webhook"];
type Topic = Webhook["topic"];

// The service's own list, typed as the API's topic: a topic the interface does not document fails the type check.
const TOPICS: readonly Topic[] = WEBHOOK_TOPICS;

/** `#/webhooks`: every webhook, and a new one. */
export function WebhookList() {
  const t = useText(messagingText);
  const c = useText(commonText);
  const loaded = useLoad(() => ok(api.GET("/ticketing/v1/admin/webhooks")), []);
  return (
    <>
      <Heading title={c.webhooks}>{c.webhooks}</Heading>
      <Show loaded={loaded}>
        {(hooks) =>
          hooks.length === 0 ? (
            <p>{c.none}</p>
          ) : (
            <Table
              caption={c.webhooks}
              rows={hooks}
              columns={[
                { label: t.name, cell: (hook) => <a href={href("/webhooks", hook.id)}>{hook.name}</a> },
                { label: t.topic, cell: (hook) => hook.topic },
                { label: t.url, wrap: true, cell: (hook) => hook.url },
                { label: t.enabled, cell: (hook) => (hook.enabled ? c.yes : c.no) },
                { label: t.pending, numeric: true, cell: (hook) => hook.pending },
                { label: t.delivered, numeric: true, cell: (hook) => hook.delivered },
                { label: t.failed, numeric: true, cell: (hook) => hook.failed },
              ]}
            />
          )
        }
      </Show>
      <h2>{t.newWebhook}</h2>
      <Form
        label={t.newWebhook}
        submitLabel={c.create}
        onSubmit={async (values) => {
          const { enabled, ...rest } = webhookBody(values);
          const hook = await ok(
            api.POST("/ticketing/v1/admin/webhooks", {
              body: { ...rest, name: values.text("name"), url: values.text("url"), secret: values.text("secret"), topic: topicOf(values) },
            }),
          );
          // The API creates webhooks disabled (ticketing-api.md "Webhooks"): "enable it at once" is a change right after.
          if (enabled)
            await ok(api.PUT("/ticketing/v1/admin/webhooks/{id}", { params: { path: { id: String(hook.id) } }, body: { enabled: true } })).catch(() => undefined);
          announce(c.created);
          navigate(href("/webhooks", hook.id));
        }}
      >
        <WebhookFields />
      </Form>
    </>
  );
}

// The select offers only the API's topics; anything else would be the API's to refuse.
const topicOf = (values: FormValues) => values.text("topic") as Topic;

/** The optional fields as the API takes them: an empty field keeps the API's default (or the current value). */
function webhookBody(values: FormValues) {
  return {
    enabled: values.bool("enabled"),
    retry_scheme: values.optionalText("retry_scheme"),
    failure_threshold: values.optionalInt("failure_threshold"),
  };
}

function WebhookFields({ hook }: { hook?: Webhook }) {
  const t = useText(messagingText);
  // Left empty, a new webhook takes the API's default; a change leaves the current value as it is.
  const withDefault = (hint: string) => (hook ? hint : `${hint} ${t.emptyKeepsDefault}`);
  return (
    <>
      <Field name="name" label={t.name} value={hook?.name} required={!hook} maxLength={200} />
      <Field name="url" type="url" label={t.url} hint={t.urlHint} value={hook?.url} required={!hook} />
      <Field name="secret" label={t.secret} hint={hook ? t.secretKeepHint : t.secretHint} required={!hook} autocomplete="off" />
      <Select name="topic" label={t.topic} value={hook?.topic ?? "order.created"} options={TOPICS.map((topic) => ({ value: topic, label: topic }))} />
      <Check name="enabled" label={hook ? t.enabled : t.enableAtOnce} hint={hook ? undefined : t.enabledHint} checked={hook?.enabled ?? false} />
      <Field name="retry_scheme" label={t.retryScheme} hint={withDefault(t.retrySchemeHint)} value={hook?.retry_scheme} />
      <Field name="failure_threshold" type="number" label={t.failureThreshold} hint={withDefault(t.failureThresholdHint)} value={hook?.failure_threshold} min={0} />
    </>
  );
}

type Ping = {
  "Webhook Delivery": {
    "Delivery ID": string;
    Date: string;
    URL: string;
    Duration: string;
    Response: { Code: number; Message: string; Headers: Record<string, string>; Body: string };
  };
};

/** `#/webhooks/<id>`: the webhook, its change, ping, counters and delivery log. */
export function WebhookPage({ id }: { id: string }) {
  const t = useText(messagingText);
  const c = useText(commonText);
  const loaded = useLoad(() => ok(api.GET("/ticketing/v1/admin/webhooks/{id}", { params: { path: { id } } })), [id]);
  const [ping, setPing] = useState<Ping | undefined>(undefined);
  const [pingError, setPingError] = useState<unknown>(undefined);
  return (
    <ShowDetail loaded={loaded} title={format(t.webhookTitle, { name: id })}>
      {(hook) => (
        <>
          <RecordHeading title={format(t.webhookTitle, { name: hook.name })} back={href("/webhooks")} backLabel={t.allWebhooks} />
          <Details
            rows={[
              [t.topic, hook.topic],
              [t.url, hook.url],
              [t.enabled, hook.enabled ? c.yes : c.no],
              [t.pending, hook.pending],
              [t.delivered, hook.delivered],
              [t.retries, hook.retries],
              [t.failed, hook.failed],
              [t.lastSuccess, <When at={hook.last_success} />],
              [t.lastRetry, <When at={hook.last_retry} />],
              [t.lastFailure, <When at={hook.last_failure} />],
              [t.created, <When at={hook.date_created} />],
            ]}
          />
          <div class="actions">
            <button
              type="button"
              onClick={async () => {
                setPingError(undefined);
                try {
                  setPing(await ok(api.GET("/ticketing/v1/admin/webhooks/{id}/ping", { params: { path: { id } } })));
                  announce(t.pinged);
                } catch (error) {
                  setPing(undefined);
                  setPingError(error);
                }
              }}
            >
              {t.ping}
            </button>
            <ConfirmButton
              class="secondary"
              label={t.resetCounters}
              question={format(t.confirmReset, { name: hook.name })}
              onConfirm={async () => {
                await ok(api.GET("/ticketing/v1/admin/webhooks/{id}/reset-counters", { params: { path: { id } } }));
                announce(t.countersReset);
                loaded.reload();
              }}
            />
            <ConfirmButton
              label={t.deleteWebhook}
              question={format(c.confirmDelete, { name: hook.name })}
              onConfirm={async () => {
                await ok(api.DELETE("/ticketing/v1/admin/webhooks/{id}", { params: { path: { id } } }));
                announce(c.deleted);
                navigate(href("/webhooks"));
              }}
            />
          </div>
          {pingError !== undefined && <Problem error={pingError} />}
          {ping && <PingOutcome ping={ping} />}
          <h2>{t.changeWebhook}</h2>
          <Form
            label={t.changeWebhook}
            submitLabel={c.save}
            onSubmit={async (values) => {
              await ok(
                api.PUT("/ticketing/v1/admin/webhooks/{id}", {
                  params: { path: { id } },
                  body: {
                    ...webhookBody(values),
                    name: values.optionalText("name"),
                    url: values.optionalText("url"),
                    secret: values.optionalText("secret"),
                    topic: topicOf(values),
                  },
                }),
              );
              loaded.reload();
              return c.saved;
            }}
          >
            <WebhookFields hook={hook} />
          </Form>
          <Deliveries webhookId={id} />
        </>
      )}
    </ShowDetail>
  );
}

/** What the receiver answered to the ping: its code and message, headers and body, all as text. */
function PingOutcome({ ping }: { ping: Ping }) {
  const t = useText(messagingText);
  const delivery = ping["Webhook Delivery"];
  const response = delivery.Response;
  return (
    <section aria-labelledby="ping-outcome">
      <h2 id="ping-outcome">{t.pingOutcome}</h2>
      <Details
        rows={[
          [t.deliveryId, delivery["Delivery ID"]],
          [t.date, delivery.Date],
          [t.url, delivery.URL],
          [t.duration, delivery.Duration],
          [t.responseCode, response.Code === 0 ? format(t.noResponse, { message: response.Message }) : `${response.Code} ${response.Message}`],
        ]}
      />
      <h3>{t.responseHeaders}</h3>
      <HeadersText headers={response.Headers} />
      <h3>{t.responseBody}</h3>
      <BodyText body={response.Body} />
    </section>
  );
}
