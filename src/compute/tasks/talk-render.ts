import { renderTask } from './render-task.ts';

/** A photo speaking (POST /talks): as clip.render, source = the talk's photo (stitch may be true). */
export const talkRender = renderTask('talk.render', ['source', 'driver', 'logo']);
