// What each verification step of a consent means, in words a person understands: the
// checks of src/consents/verify.ts (decodes, sound, one_face, facing_camera, speech_length,
// words), what was measured, and what to do when one fails. No DOM here: consent-record.js
// shows these, and test/studio/consent-checks.test.ts reads them.

/** The checks in the order they run, with what each one looks for. */
export const CHECKS = [
  { check: 'decodes', title: 'The video plays' },
  { check: 'sound', title: 'Your voice is heard' },
  { check: 'one_face', title: 'Only your face is in the picture' },
  { check: 'facing_camera', title: 'You look at the camera' },
  { check: 'speech_length', title: 'The whole statement is read' },
  { check: 'words', title: 'Your name and the passcode are said' },
];

const seconds = (s) => `${Number(s).toFixed(1).replace(/\.0$/, '')} s`;
const num = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** A recogniser's verdict needs a person: no recogniser for the language, or one word not heard. */
const waitsForOperator = (step) => step.check === 'words' && !step.passed && (step.measured?.recogniser === null || /review/.test(step.note ?? ''));

/** 'a', 'a and b', 'a, b and c'. */
const listed = (words) => (words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`);

/** The words of the name and of the passcode the recogniser did not hear (`consent`: its record, for the words). */
function unheard(m, consent) {
  const parts = [];
  if (Array.isArray(m.name_found) && m.name_found.includes(false)) parts.push(consent?.name ? `your name (${consent.name})` : 'your name');
  const codes = Array.isArray(consent?.passcode) && Array.isArray(m.passcode_found) ? consent.passcode.filter((_, i) => m.passcode_found[i] === false) : [];
  if (codes.length) parts.push(`the passcode word${codes.length > 1 ? 's' : ''} ${listed(codes)}`);
  return parts;
}

/**
 * What a measured step says: `{state: 'passed'|'failed'|'review', text}`. `consent` (its
 * record, optional) lets the words check name the words that were not heard.
 */
export function describeStep(step, consent) {
  const m = step.measured ?? {};
  const l = step.limit ?? {};
  if (waitsForOperator(step)) {
    return {
      state: 'review',
      text: m.recogniser === null
        ? 'Speech recognition is not available for this language here: an operator will watch your video to check the words.'
        : 'One word was not heard clearly: an operator will watch your video to check it.',
    };
  }
  const ok = (text) => ({ state: 'passed', text });
  const no = (text) => ({ state: 'failed', text });
  switch (step.check) {
    case 'decodes':
      if (step.passed) return ok(`${seconds(m.duration_sec)} long, ${m.width}×${m.height}.`);
      if (m.error) return no('We could not play your video: the file is damaged or in a format we do not read. Record it again.');
      return no(`Your video is ${seconds(m.duration_sec)} long; it must be ${seconds(l.min_sec)} to ${seconds(l.max_sec)}.`);
    case 'sound':
      if (step.passed) return ok(`${seconds(m.speech_sec)} of speech heard.`);
      if (!m.has_audio) return no('Your video has no sound. Check that your microphone is on, not muted, and allowed for this page, then record again.');
      return no('We could not hear anyone speak. Read the statement aloud, close to the microphone, in a quiet room.');
    case 'one_face':
      if (step.passed) return ok(`Your face was in ${num(m.one_face)} of the ${num(m.frames)} moments we looked at.`);
      if (num(m.several_faces) > num(m.no_face)) return no(`Someone else was in the picture in ${num(m.several_faces)} of ${num(m.frames)} moments. Record alone, with nobody else in view (a photo of a face counts too).`);
      return no(`We could not see your face in ${num(m.no_face)} of ${num(m.frames)} moments. Sit facing the camera, in good light, with your whole face in the frame.`);
    case 'facing_camera':
      if (step.passed) return ok('You looked at the camera.');
      return no('Your face was turned away from the camera too often. Look straight at the camera while you read, with your head level.');
    case 'speech_length': {
      const [lo, hi] = Array.isArray(l.expected_sec) ? l.expected_sec : [0, 0];
      if (step.passed) return ok(`${seconds(m.speech_sec)} of reading, as long as the statement takes.`);
      if (num(m.speech_sec) < lo) return no(`You spoke for ${seconds(m.speech_sec)}; reading the whole statement takes about ${seconds(lo)} to ${seconds(hi)}. Read all of it, at a normal pace.`);
      return no(`You spoke for ${seconds(m.speech_sec)}; reading the statement takes about ${seconds(lo)} to ${seconds(hi)}. Record just the statement, without talking before or after it.`);
    }
    case 'words':
      if (step.passed) return ok('Your name and the three passcode words were heard.');
      if (unheard(m, consent).length) return no(`We did not hear ${listed(unheard(m, consent))}. Read the statement exactly as shown, with your name and the three passcode words, clearly.`);
      return no('We did not hear the statement as it is written. Read it exactly as shown, with your name and the three passcode words, clearly.');
    default:
      return step.passed ? ok('Passed.') : no('This check did not pass.');
  }
}

/**
 * Where a consent stands, for a person: `{state, title, text, detail?}` with state one of
 * waiting (no video yet), checking, review (an operator decides), done, refused, expired.
 */
export function outcomeOf(rec) {
  const steps = rec.verification?.steps ?? [];
  const review = rec.verification?.review;
  if (rec.status === 'done') {
    return { state: 'done', title: 'Verified', text: 'Your consent is verified: it can be used for one avatar of you.' };
  }
  if (rec.status === 'error') {
    if (rec.error?.kind === 'ConsentExpiredError') {
      return { state: 'expired', title: 'Expired', text: 'This statement expired: a video must be uploaded within 30 minutes of getting it. Record again for a new passcode.', detail: rec.error.description };
    }
    if (review?.state === 'rejected') {
      return { state: 'refused', title: 'Not verified', text: 'An operator watched your video and could not confirm the statement. Record again, reading it exactly as shown.', detail: rec.error?.description ?? review.reason };
    }
    const failed = steps.find((s) => !s.passed);
    const text = failed ? describeStep(failed, rec).text : 'Your video could not be checked. Record again.';
    return { state: 'refused', title: 'Not verified', text, detail: rec.error?.description };
  }
  if (rec.status === 'validating' && review?.state === 'pending') {
    const words = steps.find((s) => s.check === 'words');
    const why = words ? describeStep(words, rec).text : 'An operator will watch your video.';
    return { state: 'review', title: 'Waiting for an operator', text: `${why} This page shows their decision when it comes.`, detail: review.reason };
  }
  if (rec.status === 'validating') return { state: 'checking', title: 'Checking', text: 'Each check appears below as it is measured.' };
  return { state: 'waiting', title: 'Waiting for a video', text: 'Record the statement to give this consent.' };
}

/** A status for the list of consents, in words. */
export function statusWords(rec) {
  const { state } = outcomeOf(rec);
  return { done: 'Verified', refused: 'Not verified', expired: 'Expired', review: 'Waiting for an operator', checking: 'Being checked', waiting: 'Waiting for a video' }[state];
}
