/** Display helpers shared by pages. */
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export const formatTime = (epochMs: number): string => dateTime.format(new Date(epochMs));
