// The voice picker of the clip form: the voices that can speak here (GET /tts/voices), grouped
// by provider, and "Hear a sample" (GET /tts/voices/{id}/sample), played in the page's
// <audio> from a blob: URL (an <audio src> cannot carry the bearer token).
import { api, getToken, showError } from './api.js';

const PROVIDER_NAMES = { flite: 'Flite (built in)', espeak: 'eSpeak NG (built in, many languages)', microsoft: 'Microsoft', elevenlabs: 'ElevenLabs', openai: 'OpenAI' };

/** "English (en-US)": a voice's first language. */
const languageOf = (v) => (v.languages[0] ? `${v.languages[0].language} (${v.languages[0].locale})` : '');

/**
 * Fills `select` with the voices and wires the sample button. `presenterVoice()` answers the
 * voice of the chosen presenter, `{type, voice_id}`: what the first option ("the presenter's
 * own voice") and its sample mean. Answers `chosen()`: the voice picked, or null for the presenter's.
 */
export async function voicePicker({ select, button, audio, status, error, presenterVoice }) {
  let lastUrl;

  async function hear() {
    const choice = chosen() ?? presenterVoice();
    if (!choice) return;
    button.disabled = true;
    error.textContent = '';
    status.textContent = 'Speaking a sample…';
    try {
      const res = await fetch(`/tts/voices/${encodeURIComponent(choice.voice_id)}/sample?provider=${encodeURIComponent(choice.type)}`, {
        headers: { authorization: `Bearer ${await getToken()}` },
      });
      if (!res.ok) {
        status.textContent = '';
        const body = await res.json().catch(() => null);
        return showError(error, { status: res.status, body });
      }
      if (lastUrl) URL.revokeObjectURL(lastUrl);
      lastUrl = URL.createObjectURL(await res.blob());
      audio.src = lastUrl;
      audio.hidden = false;
      status.textContent = `A sample of ${choice.voice_id}.`;
      await audio.play().catch(() => {
        // Autoplay refused: the controls are there to press play.
      });
    } finally {
      button.disabled = false;
    }
  }

  function chosen() {
    const option = select.selectedOptions[0];
    return option?.value ? { type: option.dataset.provider, voice_id: option.dataset.voiceId } : null;
  }

  button.addEventListener('click', () => {
    hear().catch((err) => {
      status.textContent = '';
      error.textContent = err.message;
    });
  });

  const res = await api('GET', '/tts/voices');
  if (res.status !== 200) {
    showError(error, res);
    return { chosen };
  }
  const groups = new Map();
  for (const v of res.body) {
    if (!groups.has(v.provider)) {
      const group = document.createElement('optgroup');
      group.label = PROVIDER_NAMES[v.provider] ?? v.provider;
      groups.set(v.provider, group);
    }
    const option = document.createElement('option');
    option.value = `${v.provider}:${v.id}`;
    option.dataset.provider = v.provider;
    option.dataset.voiceId = v.id;
    option.textContent = `${v.name} · ${v.gender} · ${languageOf(v)}`;
    groups.get(v.provider).append(option);
  }
  select.append(...groups.values());
  return { chosen };
}
