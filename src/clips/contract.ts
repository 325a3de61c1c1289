/**
 * What the clips capability offers the others: the job that renders a presenter's talking
 * preview (`talking_preview_url`). The clips module runs it; the avatars module queues one
 * when an avatar's training ends (its resource id is the presenter's id, its user the
 * presenter's owner). Other capabilities import this file only, never the clips folder's
 * other files.
 */
export const PREVIEW_JOB = 'presenter.preview';
