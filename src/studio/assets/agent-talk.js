// One agent's page, its top and "Talk to it": the agent as GET /agents/{id} answers it, then a
// live stream of it over WebRTC (stream.js, shared with examples/stream/) and its chat: each
// typed message goes to POST /agents/{id}/chat/{chatId} with the whole conversation and, while
// the video runs, the stream's id, so the answer is shown here and spoken there.
// Text only: nothing is parsed as HTML.
import { api, getToken, showError } from './api.js';
import { timeElement } from './dom.js';
import { modelSummary, presenterNames } from './agent-common.js';
import { abandonStream, closeStream, openStream } from './stream.js';

const $ = (id) => document.getElementById(id);
const agentId = $('agent-page').dataset.agentId;
const path = `/agents/${encodeURIComponent(agentId)}`;
const video = $('talk-video');
const connect = $('talk-connect');
const disconnect = $('talk-disconnect');
const talkStatus = $('talk-status');
const chatLog = $('chat-log');
const chatForm = $('chat-form');
const message = $('chat-message');
const send = $('chat-send');
const chatError = $('chat-error');
const starters = $('chat-starters');

let stream;
let chatId;
/** The conversation so far, as the chat route takes it (the whole of it, each time). */
const messages = [];
/** The token of the last call, for the DELETE that leaves with the page (pagehide cannot wait for a new one). */
let lastToken;

/** stream.js's way to the API: the JSON body, or an Error with the service's description. */
async function call(method, p, body) {
  const res = await api(method, p, body);
  if (res.status >= 400) throw new Error(res.body?.description ?? `${method} ${p}: the service answered ${res.status}`);
  return res.body;
}

function fact(list, term, ...value) {
  const dt = document.createElement('dt');
  dt.textContent = term;
  const dd = document.createElement('dd');
  dd.append(...value);
  list.append(dt, dd);
}

function bubble(role, text) {
  chatLog.querySelector('.chat-empty')?.remove();
  const li = document.createElement('li');
  li.className = role === 'user' ? 'chat-user' : 'chat-agent';
  const who = document.createElement('span');
  who.className = 'chat-who';
  who.textContent = role === 'user' ? 'You' : $('agent-name').textContent;
  const words = document.createElement('span');
  words.className = 'chat-words';
  words.textContent = text;
  li.append(who, words);
  chatLog.append(li);
  chatLog.scrollTop = chatLog.scrollHeight;
  return li;
}

function setLive(live) {
  connect.hidden = live;
  disconnect.hidden = !live;
}

async function showAgent() {
  const res = await api('GET', path);
  if (res.status !== 200) {
    showError($('agent-error'), res);
    connect.disabled = send.disabled = true;
    return;
  }
  const agent = res.body;
  const name = agent.preview_name || 'Untitled agent';
  $('agent-name').textContent = name;
  document.title = `${name} · mimic studio`;
  if (agent.preview_thumbnail) video.poster = agent.preview_thumbnail;
  const facts = $('agent-facts');
  let presenter = 'A photo';
  if (agent.presenter.type === 'clip') presenter = (await presenterNames().catch(() => new Map())).get(agent.presenter.presenter_id) ?? agent.presenter.presenter_id;
  fact(facts, 'Presenter', presenter);
  const v = agent.metadata.voice;
  if (v) fact(facts, 'Voice', `${v.voice_id} (${v.type})${v.fallback ? `, instead of ${v.fallback.requested.voice_id}: ${v.fallback.reason}` : ''}`);
  fact(facts, 'Model', modelSummary(agent.llm));
  fact(facts, 'Tools', agent.llm.tools.length ? `${agent.llm.tools.length} tool${agent.llm.tools.length === 1 ? '' : 's'}` : 'None');
  const code = document.createElement('code');
  code.textContent = agent.id;
  fact(facts, 'Id', code);
  fact(facts, 'Created', timeElement(agent.created_at));
  if (agent.greetings.length) bubble('assistant', agent.greetings[Math.floor(Math.random() * agent.greetings.length)]);
  for (const q of agent.starter_message) {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'secondary';
    b.textContent = q;
    b.addEventListener('click', () => {
      message.value = q;
      message.focus();
    });
    starters.append(b);
  }
  starters.hidden = !agent.starter_message.length;
}

const STATES = {
  connected: 'Live: type a message and the agent says its answer.',
  connecting: 'Connecting…',
  new: 'Connecting…',
  failed: 'The connection failed: stop and start the video again.',
  disconnected: 'The connection dropped…',
};

/** Says how the video is, once the stream is set up: the peer may connect before the last step of openStream has answered. */
function showState() {
  if (stream && !stream.closed) talkStatus.textContent = STATES[peerState] ?? '';
}

let peerState = 'new';

async function start() {
  connect.disabled = true;
  chatError.textContent = '';
  talkStatus.textContent = 'Connecting…';
  try {
    lastToken = await getToken();
    peerState = 'new';
    stream = await openStream(call, `${path}/streams`, { fluent: true }, video, {
      state(s) {
        peerState = s;
        showState();
      },
      message({ subject }) {
        if (subject === 'stream/error') talkStatus.textContent = 'The agent could not say that (stream/error).';
      },
      autoplayRefused: () => (talkStatus.textContent = 'Press play on the video to hear the agent (the browser held back its sound).'),
    });
    // The Start button goes away: its focus goes to the message (never taken from where the person went meanwhile).
    const hadFocus = document.activeElement === connect;
    setLive(true);
    if (hadFocus) message.focus();
    showState();
  } catch (err) {
    talkStatus.textContent = '';
    chatError.textContent = `The video could not start: ${err.message}`;
  } finally {
    connect.disabled = false;
  }
}

async function stop() {
  const s = stream;
  stream = undefined;
  const hadFocus = document.activeElement === disconnect;
  setLive(false);
  if (hadFocus) connect.focus();
  talkStatus.textContent = 'Video stopped.';
  await closeStream(call, s).catch(() => {});
}

async function ask(e) {
  e.preventDefault();
  const content = message.value.trim();
  if (!content) {
    chatError.textContent = 'Type a message first.';
    return message.focus();
  }
  chatError.textContent = '';
  send.disabled = true;
  bubble('user', content);
  message.value = '';
  const pending = bubble('assistant', '…');
  pending.classList.add('chat-pending');
  try {
    chatId ??= (await call('POST', `${path}/chat`, {})).id;
    messages.push({ role: 'user', content });
    const live = stream && !stream.closed ? { streamId: stream.id, sessionId: stream.sessionId } : {};
    const res = await api('POST', `${path}/chat/${encodeURIComponent(chatId)}`, { messages, ...live });
    if (res.status !== 200) {
      messages.pop();
      pending.remove();
      return showError(chatError, res);
    }
    let text = res.body.result;
    if (res.body.toolCalls?.length) text += `${text ? '\n' : ''}(It asked the page to run ${res.body.toolCalls.map((t) => t.name).join(', ')}: a client tool runs in your own page, not here.)`;
    pending.classList.remove('chat-pending');
    pending.querySelector('.chat-words').textContent = text || '(no words)';
    messages.push({ role: 'assistant', content: res.body.result });
  } catch (err) {
    pending.remove();
    chatError.textContent = err.message;
  } finally {
    send.disabled = false;
    message.focus();
  }
}

connect.addEventListener('click', start);
disconnect.addEventListener('click', stop);
chatForm.addEventListener('submit', ask);
// Leaving the page ends the stream (the service also ends an idle one after its session_timeout).
addEventListener('pagehide', () => abandonStream(location.origin, stream, { Authorization: `Bearer ${lastToken}` }));
showAgent().catch((err) => {
  $('agent-error').textContent = err.message;
});
