// A live stream of mimic over WebRTC, in the order a client must do it. Shared by this example
// (app.js) and the studio's agent page (mimic serves this file to both): plain browser
// JavaScript, no build step, no HTML parsed. The caller brings its own way to the API:
// `call(method, path, body)` answers the JSON body or throws with the service's error.
//   1. POST {prefix} (/talks/streams, /agents/{id}/streams): id, session_id, the SDP offer, ICE servers
//   2. a peer connection on those ICE servers; the client opens the data channel itself
//      ('JanusDataChannel') BEFORE answering, so the channel is part of the answer
//   3. set the offer, create and set the answer, POST {prefix}/{id}/sdp {answer, session_id}
//   4. each ICE candidate to POST {prefix}/{id}/ice with session_id; the end of candidates as {session_id}
//   5. (the caller speaks: POST {prefix}/{id} {script, session_id}, or an agent's chat with streamId)
//   6. DELETE {prefix}/{id} {session_id}

/** A percent-encoded text decoded; as it came when it is not valid percent-encoding. */
export function decoded(text) {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * One data-channel message as `{subject, payload}`: mimic sends `subject` or
 * `subject:payload`; chat/answer's payload is percent-encoded text, given here decoded.
 */
export function channelMessage(data) {
  const text = String(data);
  const colon = text.indexOf(':');
  const subject = colon < 0 ? text : text.slice(0, colon);
  const payload = colon < 0 ? '' : text.slice(colon + 1);
  return { subject, payload: subject === 'chat/answer' ? decoded(payload) : payload };
}

/**
 * A live stream of `prefix`, connected and playing in `video`. `on` may hold `message({subject,
 * payload})` (each data-channel message), `state(connectionState)`, `log(text, isError)` and
 * `autoplayRefused()`. Answers `{id, sessionId, path, pc, channel, closed}`.
 */
export async function openStream(call, prefix, createBody, video, on = {}) {
  const created = await call('POST', prefix, createBody);
  const { id, session_id: sessionId, offer, ice_servers: iceServers } = created;
  on.log?.(`stream ${id} created`);
  const path = `${prefix}/${id}`;

  const pc = new RTCPeerConnection({ iceServers: iceServers ?? [] });
  // Opened by the client, before the answer: mimic sends its events on this channel.
  const channel = pc.createDataChannel('JanusDataChannel');
  const stream = { id, sessionId, path, pc, channel, closed: false };

  channel.onopen = () => on.log?.('data channel open');
  channel.onmessage = (e) => on.message?.(channelMessage(e.data));

  const remote = new MediaStream();
  video.srcObject = remote;
  pc.ontrack = (e) => {
    remote.addTrack(e.track);
    void video.play().catch(() => on.autoplayRefused?.());
  };
  // close() fires no state change: closeStream's caller says "disconnected" itself.
  pc.onconnectionstatechange = () => {
    if (!stream.closed) on.state?.(pc.connectionState);
  };

  // Candidates found before the answer is posted wait for it, then go in order.
  let answered = false;
  const early = [];
  const sendCandidate = (c) =>
    call('POST', `${path}/ice`, c ? { candidate: c.candidate, sdpMid: c.sdpMid, sdpMLineIndex: c.sdpMLineIndex, session_id: sessionId } : { session_id: sessionId }).catch((err) =>
      on.log?.(`ice: ${err.message}`, true),
    );
  pc.onicecandidate = (e) => {
    const c = e.candidate ? e.candidate.toJSON() : null;
    if (answered) void sendCandidate(c);
    else early.push(c);
  };

  try {
    await pc.setRemoteDescription(offer);
    const answer = await pc.createAnswer();
    await pc.setLocalDescription(answer);
    await call('POST', `${path}/sdp`, { answer: { type: answer.type, sdp: answer.sdp }, session_id: sessionId });
  } catch (err) {
    // A stream the service made and this page cannot use: ended now, not at its timeout.
    await closeStream(call, stream).catch(() => {});
    throw err;
  }
  answered = true;
  for (const c of early.splice(0)) await sendCandidate(c);
  return stream;
}

/** Ends a stream: DELETE first (once the peer connection closes, the service ends it on its own), then the peer. */
export async function closeStream(call, stream) {
  if (!stream || stream.closed) return;
  stream.closed = true;
  try {
    await call('DELETE', stream.path, { session_id: stream.sessionId });
  } finally {
    stream.pc.close();
  }
}

/**
 * Leaving the page: the peer closes at once and the DELETE goes out with `keepalive` (it may
 * outlive the page). `headers` are the request's (its Authorization); the service also ends
 * idle streams after their session_timeout.
 */
export function abandonStream(base, stream, headers) {
  if (!stream || stream.closed) return;
  stream.closed = true;
  stream.pc.close();
  void fetch(`${base}${stream.path}`, {
    method: 'DELETE',
    keepalive: true,
    headers: { ...headers, 'Content-Type': 'application/json' },
    body: JSON.stringify({ session_id: stream.sessionId }),
  }).catch(() => {});
}
