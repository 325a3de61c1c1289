// The embed snippet of a client key: the HTML a person pastes into their own page to put the
// agent there. Pure text building, no DOM (test/studio/agents-snippet.test.ts runs it in Node).

/** The agents SDK the snippet loads (the hosted service's, from npm): the version the browser test runs the snippet with. */
export const SDK_VERSION = '2.0.10';
export const SDK_URL = `https://cdn.jsdelivr.net/npm/@d-id/client-sdk@${SDK_VERSION}/+esm`;

/** Text for an HTML page (the snippet's comment and label): the characters HTML reads as markup, as references. */
const htmlText = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/--/g, '&#45;&#45;');
/** A JavaScript string literal that cannot end (or change how HTML reads) the script element it is in. */
const jsString = (s) => JSON.stringify(s).replace(/</g, '\\u003c').replace(/>/g, '\\u003e');

/**
 * The embed snippet: a video, the conversation and a question box, and the agents SDK's
 * createAgentManager with this service's addresses and the client key (docs/agents.md,
 * "Client keys"): the form the hosted service's clients use.
 */
export function embedSnippet({ agentId, agentName, clientKey, origin, baseUrl }) {
  const who = agentName || 'the agent';
  const wsUrl = `${baseUrl.replace(/^http/, 'ws')}/notifications`;
  return `<!-- mimic agent ${htmlText(who)} (${agentId}): for a page served from ${htmlText(origin)} -->
<video id="mimic-agent-video" autoplay playsinline width="400" height="400"></video>
<ol id="mimic-agent-messages"></ol>
<form id="mimic-agent-form">
  <label for="mimic-agent-question">Ask ${htmlText(who)}</label>
  <input id="mimic-agent-question" autocomplete="off">
  <button>Send</button>
</form>
<script type="module">
  import { createAgentManager } from ${jsString(SDK_URL)};

  const video = document.getElementById('mimic-agent-video');
  const list = document.getElementById('mimic-agent-messages');
  const agent = await createAgentManager(${jsString(agentId)}, {
    baseURL: ${jsString(baseUrl)},
    wsURL: ${jsString(wsUrl)},
    auth: { type: 'key', clientKey: ${jsString(clientKey)} },
    // externalId: 'customer-42', // your visitor's id (without one, the SDK makes one up)
    enableAnalytics: false,
    callbacks: {
      onSrcObjectReady(stream) {
        video.srcObject = stream;
      },
      onNewMessage(messages) {
        list.replaceChildren(...messages.filter((m) => m.content).map((m) => {
          const li = document.createElement('li');
          li.textContent = (m.role === 'user' ? 'You: ' : ${jsString(`${who}: `)}) + m.content;
          return li;
        }));
      },
    },
  });
  await agent.connect();
  document.getElementById('mimic-agent-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const input = document.getElementById('mimic-agent-question');
    if (input.value.trim()) agent.chat(input.value.trim());
    input.value = '';
  });
</script>
`;
}

