import { renderTask } from './render-task.ts';

/**
 * A photo animated by a driver (POST /animations): source = the photo, driver = a driver video (bank drivers are
 * procedural and have no file), logo = the default logo or an image, overlay = a video composited over the result.
 */
export const animationRender = renderTask('animation.render', ['source', 'driver', 'logo', 'overlay']);
