import { put, redactJson, redactText } from '../../egress/redact.ts';
import type { ToolOutput } from './response.ts';

/**
 * The tool output with every credential form masked in header names and values and in the
 * body (text, or every key and string of parsed JSON). Runs on every tool result before it
 * reaches the caller or the model; with no forms it returns the output unchanged.
 */
export function redactToolOutput(output: ToolOutput, forms: readonly string[]): ToolOutput {
  if (forms.length === 0) return output;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(output.headers)) put(headers, redactText(name, forms), redactText(value, forms));
  return { status: output.status, headers, body: redactJson(output.body, forms) };
}
