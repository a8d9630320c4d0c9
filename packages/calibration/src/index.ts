export { CONTENT_CLASSES } from './content-class.js';
export type { ContentClass } from './content-class.js';
