import { describe, expect, it } from 'vitest';
import { sentenceSplitter, speakable } from '../../../src/agents/chat/sentences.ts';

/** Feeds `pieces` one by one; answers what came out after each, and the flushed rest. */
function feed(pieces: string[], maxChars?: number) {
  const split = sentenceSplitter(maxChars);
  const steps = pieces.map((p) => split.push(p));
  return { steps, rest: split.flush() };
}

describe('the sentence splitter', () => {
  it('ends sentences at . ! ? … followed by space, as the text streams in', () => {
    const { steps, rest } = feed(['Hello', ' there. How', ' are you? I am', ' fine! Well…', ' ok']);
    expect(steps).toEqual([[], ['Hello there.'], ['How are you?'], ['I am fine!'], ['Well…']]);
    expect(rest).toBe('ok');
  });

  it('waits when a mark is the last thing that arrived: the next piece decides (3.5 is a number)', () => {
    const { steps, rest } = feed(['It costs 3.', '5 euros. Then', ' more']);
    expect(steps).toEqual([[], ['It costs 3.5 euros.'], []]);
    expect(rest).toBe('Then more');
  });

  it('does not end at abbreviations, initials or a list number, and keeps closing quotes', () => {
    const { steps } = feed(['Dr. Smith met J. R. Tolkien, e.g. at St. Mary’s, around 5 p.m. yesterday. She said "Go!" Then left.\n']);
    expect(steps[0]).toEqual(['Dr. Smith met J. R. Tolkien, e.g. at St. Mary’s, around 5 p.m. yesterday.', 'She said "Go!"', 'Then left.']);
    expect(feed(['你好。今天天气很好！「走吧？」再', '见']).steps).toEqual([['你好。', '今天天气很好！', '「走吧？」'], []]);
    const list = feed(['Steps:\n1. Open it\n2. Close it\n']);
    expect(list.steps[0]).toEqual(['Steps:', 'Open it', 'Close it']);
  });

  it('cuts a long clause without a period at its last comma, else at a space, never mid-word', () => {
    const long = 'this clause goes on and on without any period at all, and then it keeps going with more words and more';
    const { steps, rest } = feed([long], 60);
    expect(steps[0]).toEqual(['this clause goes on and on without any period at all,']);
    expect(rest).toBe('and then it keeps going with more words and more');
    const noComma = feed(['a'.repeat(10) + ' ' + 'b'.repeat(10) + ' ' + 'c'.repeat(10)], 25);
    expect(noComma.steps[0]).toEqual(['aaaaaaaaaa bbbbbbbbbb']);
    expect(noComma.rest).toBe('cccccccccc');
  });

  it('drops what is left on discard, and reads no markdown marks out', () => {
    const split = sentenceSplitter();
    expect(split.push('Let me check')).toEqual([]);
    split.discard();
    expect(split.flush()).toBeUndefined();
    expect(speakable('## **Bold** and `code`\n- item')).toBe('Bold and code item');
  });
});
