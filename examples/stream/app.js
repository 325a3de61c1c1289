// mimic's live stream example: a photo or an agent, speaking over WebRTC in this page.
// Plain browser JavaScript, no build step. What it does, in the order a client must:
//   1. POST /talks/streams (or /agents/{id}/streams) with fluent: true (the face idles between
//      sentences): answers id, session_id, the SDP offer and ICE servers
//   2. a peer connection on those ICE servers; the client opens the data channel itself
//      ('JanusDataChannel') BEFORE answering, so the channel is part of the answer
//   3. set the offer, create and set the answer, POST .../{id}/sdp {answer, session_id}
//   4. each ICE candidate to POST .../{id}/ice with session_id; the end of candidates as {session_id}
//   5. speak: POST .../{id} {script, session_id}; the data channel tells stream/started and stream/done
//   6. agents: POST /agents/{id}/chat, then POST /agents/{id}/chat/{chatId}
//      {messages, streamId, sessionId}: the answer comes back as text and is spoken on the stream
//   7. DELETE .../{id} {session_id}
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
const setStatus = (text) => (statusLine.textContent = text);
/** A percent-encoded text decoded; as it came when it is not valid percent-encoding. */
function decoded(text) {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** One call to the API with the key; answers the JSON body, or throws with the service's error. */
async function api(method, path, body) {
  const base = fields.base.value.trim().replace(/\/+$/, '');
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
async function openStream(prefix, createBody) {
  const created = await api('POST', prefix, createBody);
  const { id, session_id: sessionId, offer, ice_servers: iceServers } = created;
  log(`stream ${id} created`);
  const path = `${prefix}/${id}`;

  const pc = new RTCPeerConnection({ iceServers: iceServers ?? [] });
  // Opened by the client, before the answer: mimic sends its events on this channel.
  const channel = pc.createDataChannel('JanusDataChannel');
  const stream = { id, sessionId, path, pc, channel, closed: false };

  channel.onopen = () => log('data channel open');
  channel.onmessage = (e) => {
    const data = String(e.data);
    const colon = data.indexOf(':');
    const subject = colon < 0 ? data : data.slice(0, colon);
    const payload = colon < 0 ? '' : data.slice(colon + 1);
    // chat/answer carries the text percent-encoded: the page shows it (and logs it) decoded.
    const shown = subject === 'chat/answer' ? decoded(payload) : payload;
    if (subject === 'chat/answer') showAnswer(shown);
    log(`${subject}${shown ? ` ${shown}` : ''}`, subject === 'stream/error' ? 'error' : undefined);
  };

  const remote = new MediaStream();
  video.srcObject = remote;
  pc.ontrack = (e) => {
    remote.addTrack(e.track);
    void video.play().catch(() => log('press play on the video to hear it (autoplay was refused)'));
  };
  // close() fires no state change: closeStream says "disconnected" itself, and a late event does not overwrite it.
  pc.onconnectionstatechange = () => {
    if (!stream.closed) setStatus(`${prefix}: ${pc.connectionState}`);
  };

  // Candidates found before the answer is posted wait for it, then go in order.
  let answered = false;
  const early = [];
  const sendCandidate = (c) =>
    api('POST', `${path}/ice`, c ? { candidate: c.candidate, sdpMid: c.sdpMid, sdpMLineIndex: c.sdpMLineIndex, session_id: sessionId } : { session_id: sessionId }).catch((err) =>
      log(`ice: ${err.message}`, 'error'),
    );
  pc.onicecandidate = (e) => {
    const c = e.candidate ? e.candidate.toJSON() : null;
    if (answered) void sendCandidate(c);
    else early.push(c);
  };

  await pc.setRemoteDescription(offer);
  const answer = await pc.createAnswer();
  await pc.setLocalDescription(answer);
  await api('POST', `${path}/sdp`, { answer: { type: answer.type, sdp: answer.sdp }, session_id: sessionId });
  answered = true;
  for (const c of early.splice(0)) await sendCandidate(c);
  return stream;
}

async function closeStream(stream) {
  if (!stream || stream.closed) return;
  stream.closed = true;
  // DELETE first: once the peer connection closes, the service ends the stream on its own.
  try {
    await api('DELETE', stream.path, { session_id: stream.sessionId });
    log(`stream ${stream.id} closed`);
  } catch (err) {
    log(err.message, 'error');
  } finally {
    stream.pc.close();
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
  for (const s of [talk, agent?.stream]) {
    if (!s || s.closed) continue;
    s.closed = true;
    s.pc.close();
    void fetch(`${fields.base.value.trim().replace(/\/+$/, '')}${s.path}`, {
      method: 'DELETE',
      keepalive: true,
      headers: { Authorization: `Basic ${fields.key.value.trim()}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ session_id: s.sessionId }),
    });
  }
});

refresh();
