// JavaScript dialogs (alert, confirm, prompt, beforeunload). While a DevTools client has the Page
// domain enabled, Chrome leaves every dialog to it, and the renderer's main thread waits: one
// unanswered alert() stalls navigation, evaluation and input of that page. So every dialog gets an
// answer: the user's (page.on('dialog')), or ours.

import type { Protocol } from 'devtools-protocol';
import type { CdpSession } from '../cdp/session.js';
import type { Logger } from '../logger.js';

export type DialogType = Protocol.Page.DialogType;

/** A dialog a page opened, as `page.on('dialog')` hands it over; answer it once. */
export class Dialog {
  #answered = false;

  /** @internal */
  constructor(
    private readonly session: CdpSession,
    private readonly event: Protocol.Page.JavascriptDialogOpeningEvent,
    private readonly onAnswer: () => void,
  ) {}

  type(): DialogType {
    return this.event.type;
  }

  message(): string {
    return this.event.message;
  }

  /** The text a prompt() offers; '' for the other types. */
  defaultValue(): string {
    return this.event.defaultPrompt ?? '';
  }

  /** URL of the frame that opened it. */
  url(): string {
    return this.event.url;
  }

  /** True once accepted or dismissed (by a handler, or by the deadline). */
  handled(): boolean {
    return this.#answered;
  }

  /** OK; for a prompt, `promptText` is what it returns (default: its default value). */
  accept(promptText?: string): Promise<void> {
    return this.#answer(true, promptText ?? this.defaultValue());
  }

  /** Cancel: confirm() returns false, prompt() null, and a beforeunload keeps the page. */
  dismiss(): Promise<void> {
    return this.#answer(false);
  }

  async #answer(accept: boolean, promptText?: string): Promise<void> {
    if (this.#answered) return;
    this.#answered = true;
    this.onAnswer();
    // The page may have closed or navigated meanwhile, which ends the dialog too.
    await this.session.sendQuiet('Page.handleJavaScriptDialog', { accept, promptText });
  }
}

/**
 * What a page does with its dialogs. Without a handler: alert and beforeunload are accepted (the
 * page goes on, a navigation leaves), confirm and prompt dismissed (the safe "no"), and each is
 * logged. With handlers, they decide; one left unanswered for `deadlineMs` is dismissed, so a
 * handler that forgets cannot stall the page for good.
 */
export function handleDialog(
  session: CdpSession,
  event: Protocol.Page.JavascriptDialogOpeningEvent,
  options: { emit: (dialog: Dialog) => boolean; deadlineMs: number; logger: Logger },
): void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const dialog = new Dialog(session, event, () => clearTimeout(timer));
  const details = { type: event.type, message: event.message.slice(0, 200), url: event.url };
  if (options.emit(dialog)) {
    if (dialog.handled()) return;
    timer = setTimeout(() => {
      options.logger.info('dialog', 'No dialog handler answered in time; dismissing the dialog', { ...details, ms: options.deadlineMs });
      void dialog.dismiss();
    }, options.deadlineMs);
    // A forgotten dialog must not keep a Node program alive by itself either.
    (timer as { unref?: () => void }).unref?.();
    return;
  }
  const accept = event.type === 'alert' || event.type === 'beforeunload';
  options.logger.info('dialog', `${accept ? 'Accepted' : 'Dismissed'} a JavaScript dialog`, details);
  void (accept ? dialog.accept() : dialog.dismiss());
}

/** What a page's dialogs need of it: whether anyone listens, and a way to tell them. */
export interface DialogPage {
  readonly defaultTimeoutMs: number;
  emit(event: 'dialog', dialog: Dialog): void;
  listenerCount(event: 'dialog'): number;
}

/** Answers every dialog the session's frames open, as handleDialog says. */
export function watchDialogs(session: CdpSession, page: DialogPage, logger: Logger): void {
  session.on('Page.javascriptDialogOpening', (event) => {
    handleDialog(session, event, {
      emit: (dialog) => {
        if (page.listenerCount('dialog') === 0) return false;
        page.emit('dialog', dialog);
        return true;
      },
      deadlineMs: page.defaultTimeoutMs,
      logger,
    });
  });
}
