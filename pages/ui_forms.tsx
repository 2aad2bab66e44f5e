/** Form fragments several pages share. */
import { MESSAGE_MAX } from "../inquiries/inquiries.ts";

/**
 * The labelled message field of an inquiry thread (a seeker's inquiry or further message, an office's reply): one
 * required text of at most `MESSAGE_MAX` characters, filled with `value`; `marks` are its `aria-invalid` /
 * `aria-describedby` when the message was refused.
 */
export function MessageField(
  p: { label: string; rows: number; value: string | undefined; marks?: Record<string, string | undefined> },
) {
  return (
    <>
      <label for="message">{p.label}</label>
      <textarea id="message" name="message" rows={p.rows} required maxlength={MESSAGE_MAX} {...p.marks}>
        {p.value ?? ""}
      </textarea>
    </>
  );
}
