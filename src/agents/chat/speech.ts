import type { ChatModel } from '../../llm/interface.ts';
import type { Logger } from '../../log.ts';
import type { StreamSpeaker } from '../../streams/contract.ts';
import { sentenceSplitter } from './sentences.ts';

/**
 * An answer spoken on the agent's stream (docs/agents.md, "Speaking on a stream"): each
 * model round's text is cut into sentences as it streams and each sentence is queued on the
 * stream at once, so the avatar starts talking before the model ends. Tool calls, their
 * arguments and results are never spoken; a round that ends in tool calls has its unfinished
 * sentence dropped (a sentence it completed before its calls, such as "Let me check.", has
 * been said already: what streams cannot be taken back). At the end, client tool calls and
 * the answer's text go on the data channel, then the speaker ends (`stream/done` follows the
 * last sentence).
 */

/** The data-channel subject that hands client tool calls to the page: `chat/tool-calls:{"toolCalls":[{id,name,tool_id,arguments}]}`. */
export const TOOL_CALLS_SUBJECT = 'chat/tool-calls';
/** The old agents demo shows the answer from `chat/answer:<encodeURIComponent(text)>`. */
export const ANSWER_SUBJECT = 'chat/answer';

/**
 * A speaker that never fails the answer: a stream that went away mid-answer (deleted, timed
 * out) ends the speech, logged once, while the answer itself completes.
 */
export function guardedSpeaker(speaker: StreamSpeaker, log: Pick<Logger, 'warn'>, context: Record<string, unknown>): StreamSpeaker {
  let broken = false;
  const guard = (what: string, f: () => void) => {
    if (broken) return;
    try {
      f();
    } catch (err) {
      broken = true;
      log.warn('agent chat: the stream stopped taking speech', { ...context, step: what, error: err instanceof Error ? err.name : 'unknown' });
    }
  };
  return {
    videoId: speaker.videoId,
    say: (sentence) => guard('say', () => speaker.say(sentence)),
    send: (subject, payload) => guard('send', () => speaker.send(subject, payload)),
    end: () => guard('end', () => speaker.end()),
  };
}

/** The model, with each round's words spoken sentence by sentence as they stream. */
export function speakingModel(model: ChatModel, speaker: StreamSpeaker, maxChars?: number): ChatModel {
  return {
    provider: model.provider,
    model: model.model,
    async complete(request) {
      const split = sentenceSplitter(maxChars);
      const answer = await model.complete({
        ...request,
        onText: (delta) => {
          request.onText?.(delta);
          for (const sentence of split.push(delta)) speaker.say(sentence);
        },
      });
      if (answer.toolCalls.length > 0) split.discard();
      else {
        const rest = split.flush();
        if (rest !== undefined) speaker.say(rest);
      }
      return answer;
    },
  };
}

/** The end of a spoken answer: client tool calls and the text on the data channel, then `end()`. */
export function finishSpeech(speaker: StreamSpeaker, text: string, toolCalls: readonly unknown[]): void {
  if (toolCalls.length > 0) speaker.send(TOOL_CALLS_SUBJECT, JSON.stringify({ toolCalls }));
  if (text !== '') speaker.send(ANSWER_SUBJECT, encodeURIComponent(text));
  speaker.end();
}
