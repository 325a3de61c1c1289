// One avatar's page: each footage check as it is measured, then training progress, then the
// presenter with its talking preview, all live from GET /clips/avatars/{id}/events (live.js),
// which sends the record at once and at every change and ends once the avatar is final and
// its preview is there (or could not be made). Text goes in through textContent only.
import { api, showError } from './api.js';
import { watch } from './live.js';

const $ = (id) => document.getElementById(id);
const root = $('avatar');
const id = root.dataset.avatarId;
const title = $('avatar-title');
const status = $('avatar-status');
const problem = $('avatar-problem');
const problemText = $('avatar-problem-text');
const problemNext = $('avatar-problem-next');
const problemActions = $('avatar-problem-actions');
const problemDetail = $('avatar-problem-detail');
const checksList = $('checks');
const trainingBar = $('training-progress');
const trainingText = $('training-text');
const presenterText = $('presenter-text');
const presenterBox = $('presenter');
const preview = $('presenter-preview');
const previewCaption = $('presenter-preview-caption');

/** The footage checks in the order they run, each said as a person would. */
const CHECKS = [
  ['length', 'Length'],
  ['resolution', 'Picture size'],
  ['sound', 'Sound track'],
  ['silent_ending', 'Silent ending'],
  ['idle_ending', 'Still ending'],
  ['one_person', 'One person in the picture'],
  ['facing_camera', 'Facing the camera'],
  ['same_person', 'Same person as in the consent'],
];

const STATUS_TEXT = {
  created: 'Waiting for its turn: the checks start shortly.',
  validating: 'Checking the footage…',
  started: 'Training the presenter…',
  done: 'Ready: the presenter can speak in your clips.',
  error: 'This avatar could not be made.',
  rejected: 'An operator refused this avatar.',
};

const percent = (share) => `${Math.round(Number(share) * 100)} %`;
const seconds = (s) => `${Number(s).toFixed(1)} s`;
function minutes(s) {
  const n = Number(s);
  const m = Math.floor(n / 60);
  const r = Math.round(n - m * 60);
  return m ? `${m} min${r ? ` ${r} s` : ''}` : `${r} s`;
}

/** What a check measured, and what it needed, in words. */
function describeCheck(c) {
  const m = c.measured ?? {};
  const l = c.limit ?? {};
  switch (c.check) {
    case 'length':
      if (m.error) return 'The file does not play as a video.';
      return `${minutes(m.duration_sec)} long (${minutes(l.min_sec)} to ${minutes(l.max_sec)} needed).`;
    case 'resolution':
      return `${m.width} × ${m.height} pixels (the shorter side needs ${l.min_short_side} or more).`;
    case 'sound':
      return m.has_audio ? 'Present.' : 'None: the voice is measured from the sound, and the ending must be silent.';
    case 'silent_ending':
      return `The last ${seconds(m.silent_sec)} are silent (${seconds(l.min_sec)} or more needed).`;
    case 'idle_ending':
      return `Movement ${m.motion_mean} on average (${l.motion_mean_max} or less), mouth opening ${m.mouth_open_median} (${l.mouth_open_median_max} or less).`;
    case 'one_person':
      return `One face in ${m.one_face} of ${m.frames} sampled frames, ${percent(m.share)} (${percent(l.min_share)} needed)${m.several_faces ? `; several faces in ${m.several_faces}` : ''}.`;
    case 'facing_camera':
      return `Looking at the camera in ${percent(m.share)} of the frames (${percent(l.min_share)} needed).`;
    case 'same_person':
      return `Face similarity ${m.median_similarity} with the consent video (${l.accept_at_least} or more passes).`;
    default:
      return '';
  }
}

function renderChecks(avatar) {
  const measured = new Map(avatar.checks.map((c) => [c.check, c]));
  const failed = avatar.checks.some((c) => !c.passed && !c.note);
  const checking = avatar.status === 'validating' || avatar.status === 'created';
  let next = true;
  const items = CHECKS.map(([name, label]) => {
    const li = document.createElement('li');
    const c = measured.get(name);
    const mark = document.createElement('span');
    mark.className = 'mark';
    mark.setAttribute('aria-hidden', 'true');
    const text = document.createElement('span');
    const strong = document.createElement('strong');
    strong.textContent = label;
    const detail = document.createElement('span');
    let state;
    if (c) {
      state = c.passed ? 'passed' : c.note ? 'review' : 'failed';
      detail.textContent = describeCheck(c) + (c.note ? ` In review: ${c.note}.` : '');
    } else if (checking && next && !failed) {
      state = 'running';
      next = false;
      detail.textContent = avatar.status === 'created' ? 'Waiting to start.' : 'Measuring…';
    } else {
      state = failed || !checking ? 'skipped' : 'waiting';
      detail.textContent = failed || !checking ? 'Not measured.' : 'Waiting.';
    }
    li.className = `check ${state}`;
    li.dataset.check = name;
    li.dataset.state = state;
    mark.textContent = { passed: '✓', failed: '✗', review: '?', running: '…', waiting: '·', skipped: '–' }[state];
    const said = { passed: 'passed', failed: 'failed', review: 'in review', running: 'measuring', waiting: 'waiting', skipped: 'not measured' }[state];
    const hidden = document.createElement('span');
    hidden.className = 'visually-hidden';
    hidden.textContent = `: ${said}. `;
    text.append(strong, hidden, detail);
    li.append(mark, text);
    return li;
  });
  checksList.replaceChildren(...items);
  const passed = avatar.checks.filter((c) => c.passed).length;
  $('stage-checks').dataset.state = failed ? 'failed' : passed === CHECKS.length ? 'done' : checking ? 'active' : 'waiting';
}

function renderTraining(avatar) {
  const stage = $('stage-training');
  if (avatar.status === 'started') {
    stage.dataset.state = 'active';
    const p = avatar.progress;
    if (p && p.total > 0) {
      trainingBar.max = p.total;
      trainingBar.value = p.done;
      trainingText.textContent = `${p.done} of ${p.total} steps · ${Math.floor((p.done / p.total) * 100)} %`;
    } else {
      trainingBar.removeAttribute('value');
      trainingText.textContent = 'Starting…';
    }
  } else if (avatar.status === 'done') {
    stage.dataset.state = 'done';
    trainingBar.max = 1;
    trainingBar.value = 1;
    trainingText.textContent = avatar.voice ? `Trained. Voice measured at ${avatar.voice.pitch_hz ? `${Math.round(avatar.voice.pitch_hz)} Hz` : 'its usual pitch'}.` : 'Trained.';
  } else if (avatar.status === 'error' || avatar.status === 'rejected') {
    stage.dataset.state = avatar.started_at ? 'failed' : 'skipped';
    if (!avatar.started_at) trainingText.textContent = 'Not started.';
  } else {
    stage.dataset.state = 'waiting';
  }
}

/** What a failed check means for the person, in one sentence. */
function failedCheckHeadline(c) {
  const m = c.measured ?? {};
  const l = c.limit ?? {};
  switch (c.check) {
    case 'length':
      if (m.error) return 'The file does not play as a video.';
      return m.duration_sec < l.min_sec ? `The footage is too short: it needs at least ${minutes(l.min_sec)}.` : `The footage is too long: at most ${minutes(l.max_sec)} is checked.`;
    case 'resolution':
      return `The picture is too small: its shorter side needs at least ${l.min_short_side} pixels.`;
    case 'sound':
      return 'The footage has no sound.';
    case 'silent_ending':
      return `The footage must end with at least ${seconds(l.min_sec)} of silence.`;
    case 'idle_ending':
      return 'The person moves or opens their mouth in the silent ending: it must be still, mouth closed.';
    case 'one_person':
      return 'One person, and only one, must be in the picture throughout.';
    case 'facing_camera':
      return 'The person does not look at the camera enough of the time.';
    case 'same_person':
      return 'The person in the footage is not the person in the consent video.';
    default:
      return undefined;
  }
}

/** Why it failed, and what the person can do next. */
function renderProblem(avatar) {
  problem.hidden = true;
  problemActions.hidden = true;
  problemDetail.textContent = '';
  if (avatar.status === 'error') {
    const failed = avatar.checks.find((c) => !c.passed && !c.note);
    const headline = failed ? failedCheckHeadline(failed) : undefined;
    problemText.textContent = headline ?? avatar.error?.description ?? 'This avatar could not be made.';
    if (headline && avatar.error?.description) problemDetail.textContent = `The service said: ${avatar.error.description}`;
    const kind = avatar.error?.kind;
    problemNext.textContent = kind === 'FootageError'
      ? 'Film the footage again with the requirements in mind. Your consent is free again and the credits were given back: make a new avatar with the new footage.'
      : kind === 'ConsentError'
        ? 'Record a new consent, then make the avatar again. The credits were given back.'
        : 'The credits were given back, and your consent is free again: try once more with a new avatar.';
    problemActions.hidden = false;
    problem.hidden = false;
  } else if (avatar.status === 'rejected') {
    problemText.textContent = avatar.review?.reason ? `An operator refused it: ${avatar.review.reason}` : 'An operator refused it.';
    problemNext.textContent = 'The credits were given back.';
    problem.hidden = false;
  } else if (avatar.review?.state === 'pending') {
    problemText.textContent = 'The footage waits for an operator: the face is close to the consent video\'s, but not clearly the same person.';
    problemNext.textContent = 'Nothing to do now: this page carries on when they decide.';
    problem.hidden = false;
  }
}

let presenterShown = false;

async function showPresenter(avatar) {
  if (presenterShown) return;
  presenterShown = true;
  $('stage-presenter').dataset.state = 'done';
  presenterText.textContent = `${avatar.name} is ready.`;
  $('presenter-id').textContent = avatar.presenter_id;
  $('presenter-voice').textContent = avatar.voice ? `${avatar.voice.voice_id} (${avatar.voice.type})` : 'chosen by mimic';
  $('presenter-clip').href = `/studio/clips/new?presenter_id=${encodeURIComponent(avatar.presenter_id)}`;
  $('presenter-clip').textContent = `Make a clip with ${avatar.name}`;
  if (avatar.image_url) preview.poster = avatar.image_url;
  presenterBox.hidden = false;
  // The hosted service's shape: GET /clips/presenters/{id} answers {presenters: [the one]}.
  const res = await api('GET', `/clips/presenters/${encodeURIComponent(avatar.presenter_id)}`);
  const presenter = res.body?.presenters?.find((p) => p.presenter_id === avatar.presenter_id);
  if (res.status !== 200 || !presenter?.talking_preview_url) {
    previewCaption.textContent = 'The talking preview is not available; the presenter works in clips all the same.';
    return;
  }
  previewCaption.textContent = `${avatar.name} saying a sentence in the voice chosen for them.`;
  preview.src = presenter.talking_preview_url;
}

preview.addEventListener('error', () => {
  previewCaption.textContent = 'The talking preview could not be made; the presenter works in clips all the same.';
});

function render(avatar) {
  title.textContent = avatar.name;
  document.title = `${avatar.name} · Avatar · mimic studio`;
  root.dataset.status = avatar.status;
  status.textContent = STATUS_TEXT[avatar.status] ?? avatar.status;
  renderChecks(avatar);
  renderTraining(avatar);
  renderProblem(avatar);
  if (avatar.status !== 'done') {
    $('stage-presenter').dataset.state = avatar.status === 'error' || avatar.status === 'rejected' ? 'skipped' : 'waiting';
    presenterText.textContent = avatar.status === 'error' || avatar.status === 'rejected' ? 'Not made.' : 'Ready when training ends.';
  }
}

let last;
async function follow() {
  const ended = await watch(`/clips/avatars/${encodeURIComponent(id)}/events`, (avatar) => {
    last = avatar;
    render(avatar);
  });
  if (ended === 'deleted') {
    status.textContent = '';
    problemText.textContent = 'This avatar was deleted.';
    problemNext.textContent = 'Its presenter and their media are gone with it.';
    problem.hidden = false;
  } else if (last?.status === 'done') {
    // The stream ends once the avatar is final and, when done, its talking preview is there (or could not be made).
    await showPresenter(last);
  }
  root.dataset.settled = 'yes';
}

async function start() {
  const res = await api('GET', `/clips/avatars/${encodeURIComponent(id)}`);
  if (res.status !== 200) {
    status.textContent = '';
    if (res.status === 404) {
      problemText.textContent = 'There is no such avatar among yours.';
      problemNext.textContent = 'It may have been deleted.';
    } else {
      showError(problemText, res);
    }
    problem.hidden = false;
    return;
  }
  last = res.body;
  render(res.body);
  await follow();
}

start().catch((err) => {
  problemText.textContent = `The page lost touch with the service: ${err?.message ?? err}. Reload to try again.`;
  problem.hidden = false;
});
