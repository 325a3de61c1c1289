/**
 * One worked request body per create operation, published as the media type's `example`
 * in /openapi.json: the reference shows these instead of values generated from patterns.
 * Each is checked against the schema that validates the request (test/http/request-examples).
 */
export const REQUEST_EXAMPLES: Readonly<Record<string, unknown>> = {
  'POST /animations': { driver_url: 'bank://nostalgia/', user_data: 'my first animation' },
  'POST /clips': {
    presenter_id: 'grace-Hq4mW8zL2c',
    script: { type: 'text', input: 'Hello! I am Grace. Maybe we can build a better program, by moving our mouths in time with the sound.' },
  },
  'POST /talks': { source_url: 's3://images/img_0123456789abcdef.jpg', script: { type: 'text', input: 'Hello! This photo speaks.' } },
  'POST /consents': { language: 'english' },
  'POST /clips/avatars': { source_url: 's3://videos/vid_0123456789abcdef.mp4', name: 'Maria Lopez', gender: 'female', consent_id: 'cns_0123456789abcdef' },
  'POST /secrets': { type: 'bearer', provider: 'weather', token: 'sk-live-0123456789' },
  'POST /tools': {
    name: 'get_forecast',
    description: 'Weather forecast for a city',
    provider: 'weather',
    schema: { parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1 } }, required: ['city'] } },
    config: { type: 'server', url: 'https://api.weather.example/v1/cities/{city}/forecast', method: 'GET' },
    auth: { secret_id: 'sec_0123456789abcdef' },
  },
  'POST /tools/{id}/calls': { input: { city: 'Oslo', days: 3 } },
  'POST /agents': {
    preview_name: 'Helper',
    presenter: { type: 'clip', presenter_id: 'grace-Hq4mW8zL2c' },
    llm: { provider: 'openai', base_url: 'http://localhost:11434/v1', model: 'llama3.2', instructions: 'Answer in one or two sentences.', tools: ['tool_0123456789abcdef'] },
  },
};
