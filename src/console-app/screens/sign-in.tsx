import { signIn } from "../api";
import { useText } from "../i18n";
import { commonText } from "../messages/common";
import type { Session } from "../session";
import { Field, Form } from "../ui/form";
import { Heading } from "../ui/page";

/** Sign-in (decisions.md 15): a user's name or email and one of its application passwords. */
export function SignIn({ onSignedIn, notice }: { onSignedIn: (session: Session) => void; notice?: string }) {
  const t = useText(commonText);
  return (
    <main id="main" class="sign-in">
      <Heading title={t.signInTitle}>{t.signInTitle}</Heading>
      {notice && <p class="notice">{notice}</p>}
      <Form
        submitLabel={t.signIn}
        onSubmit={async (values) => {
          const answer = await signIn(values.text("username"), values.text("password"));
          onSignedIn({ csrf: answer.csrf_token, user: answer.user });
        }}
      >
        <Field name="username" label={t.username} required autocomplete="username" />
        <Field name="password" type="password" label={t.password} hint={t.passwordHint} required autocomplete="current-password" />
      </Form>
    </main>
  );
}
