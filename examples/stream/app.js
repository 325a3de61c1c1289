// mimic's live stream example: a photo or an agent, speaking over WebRTC in this page.
// Plain browser JavaScript, no build step. The stream itself (create, peer connection, data
// channel, SDP answer, ICE candidates, close) is stream.js, which the studio's agent page
// shares; this page adds the key, the buttons and the log:
//   1. POST /talks/streams (or /agents/{id}/streams) with fluent: true (the face idles between
//      sentences), connected by stream.js
//   2. speak: POST .../{id} {script, session_id}; the data channel tells stream/started and stream/done
//   3. agents: POST /agents/{id}/chat, then POST /agents/{id}/chat/{chatId}
//      {messages, streamId, sessionId}: the answer comes back as text and is spoken on the stream
//   4. DELETE .../{id} {session_id}
import { abandonStream, closeStream as endStream, openStream as startStream } from './stream.js';

const $ = (id) => document.getElementById(id);

const fields = {
  base: $('base-url'),
  key: $('api-key'),
  photo: $('photo-url'),
  photoFile: $('photo-file'),
  agent: $('agent-id'),
  sentence: $('sentence'),
  question: $('question'),
};
const video = $('video');
const statusLine = $('status');
const logList = $('log');
const answerBox = $('answer');

// Served by mimic itself (GET /examples/stream/): the API is this origin.
if (location.protocol === 'http:' || location.protocol === 'https:') fields.base.value = location.origin;
// Settings may come in the URL fragment (never sent to a server): #agent=agt_…&photo=https://…
for (const [name, value] of new URLSearchParams(location.hash.slice(1))) {
  if (name === 'agent') fields.agent.value = value;
  if (name === 'photo') fields.photo.value = value;
  if (name === 'base') fields.base.value = value;
}

function log(text, cls) {
  const li = document.createElement('li');
  const time = document.createElement('time');
  time.textContent = new Date().toLocaleTimeString();
  const line = document.createElement('span');
  line.textContent = text;
  li.append(time, ' ', line);
  if (cls) li.className = cls;
  if (cls === 'error') console.error(text);
  logList.append(li);
  li.scrollIntoView({ block: 'nearest' });
}
const baseUrl = () => fields.base.value.trim().replace(/\/+$/, '');
const setStatus = (text) => (statusLine.textContent = text);

/** One call to the API with the key; answers the JSON body, or throws with the service's error. */
async function api(method, path, body) {
  const base = baseUrl();
  const key = fields.key.value.trim();
  if (!base || !key) throw new Error('fill in the base URL and the API key first');
  const headers = { Authorization: `Basic ${key}` };
  let payload;
  if (body instanceof FormData) payload = body;
  else if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  const res = await fetch(`${base}${path}`, { method, headers, body: payload });
  const text = await res.text();
  let json;
  try {
    json = text ? JSON.parse(text) : {};
  } catch {
    json = { description: text };
  }
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${json.kind ?? ''} ${json.description ?? ''}`.trim());
  return json;
}

/** A live stream of `prefix` (`/talks/streams`, `/agents/{id}/streams`), connected and playing in the video element. */
function openStream(prefix, createBody) {
  return startStream(api, prefix, createBody, video, {
    log: (text, isError) => log(text, isError ? 'error' : undefined),
    // chat/answer carries the text percent-encoded: stream.js gives it decoded, shown and logged.
    message({ subject, payload }) {
      if (subject === 'chat/answer') showAnswer(payload);
      log(`${subject}${payload ? ` ${payload}` : ''}`, subject === 'stream/error' ? 'error' : undefined);
    },
    state: (s) => setStatus(`${prefix}: ${s}`),
    autoplayRefused: () => log('press play on the video to hear it (autoplay was refused)'),
  });
}

async function closeStream(stream) {
  if (!stream || stream.closed) return;
  try {
    await endStream(api, stream);
    log(`stream ${stream.id} closed`);
  } catch (err) {
    log(err.message, 'error');
  } finally {
    setStatus('disconnected');
  }
}

/** Runs a button's action with the button disabled; shows the error in the log. */
function action(button, fn) {
  button.addEventListener('click', async () => {
    button.disabled = true;
    try {
      await fn();
    } catch (err) {
      log(err.message, 'error');
      setStatus('error');
    } finally {
      button.disabled = false;
      refresh();
    }
  });
}

let talk;
let agent; // { stream, agentId, chatId, messages }

function refresh() {
  $('talk-connect').disabled = Boolean(talk);
  $('talk-disconnect').disabled = !talk;
  $('talk-speak').disabled = !talk;
  $('agent-connect').disabled = Boolean(agent);
  $('agent-disconnect').disabled = !agent;
  $('agent-ask').disabled = !agent;
}

function showAnswer(text) {
  answerBox.textContent = text;
}

/** The photo upload in flight, if any: Connect waits for it rather than finding no photo yet. */
let uploading;
fields.photoFile.addEventListener('change', () => {
  const file = fields.photoFile.files?.[0];
  if (!file) return;
  uploading = (async () => {
    try {
      log(`uploading ${file.name}…`);
      const form = new FormData();
      form.set('image', file, file.name);
      const { url } = await api('POST', '/images', form);
      fields.photo.value = url;
      log(`photo uploaded: ${url}`);
    } catch (err) {
      log(err.message, 'error');
    } finally {
      uploading = undefined;
    }
  })();
});

action($('talk-connect'), async () => {
  await uploading;
  const source_url = fields.photo.value.trim();
  if (!source_url) throw new Error('give a photo URL or upload a photo first');
  // fluent: the face shows (blinking, breathing) as soon as the peer connects, not only while it speaks.
  talk = await openStream('/talks/streams', { source_url, fluent: true });
});

action($('talk-speak'), async () => {
  const input = fields.sentence.value.trim();
  if (!input) throw new Error('type a sentence first');
  const res = await api('POST', talk.path, { script: { type: 'text', input }, session_id: talk.sessionId });
  log(`speak: ${res.status}${res.duration !== undefined ? `, ${res.duration} s` : ''}`);
});

action($('talk-disconnect'), async () => {
  const t = talk;
  talk = undefined;
  await closeStream(t);
});

action($('agent-connect'), async () => {
  const agentId = fields.agent.value.trim();
  if (!agentId) throw new Error('give an agent id first');
  const path = `/agents/${encodeURIComponent(agentId)}`;
  const stream = await openStream(`${path}/streams`, { fluent: true });
  try {
    const chat = await api('POST', `${path}/chat`, {});
    agent = { stream, path, chatId: chat.id, messages: [] };
    log(`chat ${chat.id} created`);
  } catch (err) {
    await closeStream(stream);
    throw err;
  }
});

action($('agent-ask'), async () => {
  const content = fields.question.value.trim();
  if (!content) throw new Error('type a question first');
  agent.messages.push({ role: 'user', content, created_at: new Date().toISOString() });
  showAnswer('…');
  const res = await api('POST', `${agent.path}/chat/${agent.chatId}`, {
    messages: agent.messages,
    streamId: agent.stream.id,
    sessionId: agent.stream.sessionId,
  });
  // An empty result means the text went out another way (the data channel's chat/answer).
  if (res.result) showAnswer(res.result);
  agent.messages.push({ role: 'assistant', content: res.result || answerBox.textContent, created_at: new Date().toISOString() });
  log('answer received');
});

action($('agent-disconnect'), async () => {
  const a = agent;
  agent = undefined;
  await closeStream(a?.stream);
});

// Leaving the page ends the streams (the service also ends idle ones after session_timeout).
addEventListener('pagehide', () => {
  for (const s of [talk, agent?.stream]) abandonStream(baseUrl(), s, { Authorization: `Basic ${fields.key.value.trim()}` });
});

refresh();
