import { renderTask } from './render-task.ts';

/**
 * A presenter speaking: source = the presenter picture, driver = the speech audio (WAV) with its phoneme cues in the task,
 * background = the picture the presenter is shown on (when the task's background is an image). The result is scaled
 * to `output_resolution` when the request names one.
 */
export const clipRender = renderTask('clip.render', ['source', 'driver', 'logo', 'background']);
