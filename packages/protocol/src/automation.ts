/**
 * Automation of a skill group (contract 6.4): business hours with a time zone and holidays,
 * welcome and out-of-hours messages, a queue-position notice, the idle warning and auto-close,
 * and the re-offer of a conversation left waiting. Minutes of 0 (or absent) turn a timer off.
 */
import { Type, type Static } from 'typebox';

const Hhmm = Type.String({ pattern: '^([01]\\d|2[0-3]):[0-5]\\d$', description: 'HH:MM, 24-hour, in the time zone' });
const Minutes = Type.Integer({ minimum: 0, maximum: 10_080, description: 'Minutes (0: off)' });
const Message = Type.Object({ enabled: Type.Boolean(), text: Type.String({ maxLength: 2000 }) }, { additionalProperties: false });

export const AutomationSettings = Type.Object(
  {
    time_zone: Type.String({ minLength: 1, maxLength: 64, description: 'IANA time zone, e.g. `Asia/Shanghai`' }),
    business_hours: Type.Array(Type.Object({ day: Type.Integer({ minimum: 0, maximum: 6, description: '0 is Sunday' }), from: Hhmm, to: Hhmm }, { additionalProperties: false }), {
      maxItems: 50,
      description: 'Open periods; none: open at all times (holidays aside)',
    }),
    holidays: Type.Array(Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'YYYY-MM-DD in the time zone' }), { maxItems: 366 }),
    welcome: Message,
    out_of_hours: Message,
    queue_notice: Type.Optional(
      Type.Object(
        { enabled: Type.Boolean(), text: Type.String({ maxLength: 2000 }) },
        { additionalProperties: false, description: 'Sent when a new conversation waits; `{position}` in the text is replaced by its position' },
      ),
    ),
    idle_warning_text: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
    idle_warning_minutes: Type.Optional(Minutes),
    auto_close_minutes: Type.Optional(Minutes),
    reoffer_minutes: Type.Optional(Minutes),
  },
  {
    additionalProperties: false,
    examples: [
      {
        time_zone: 'Asia/Shanghai',
        business_hours: [{ day: 1, from: '09:00', to: '18:00' }],
        holidays: ['2027-02-06'],
        welcome: { enabled: true, text: 'Hello! An agent will be with you shortly.' },
        out_of_hours: { enabled: true, text: 'We are closed now; we answer from 9:00.' },
        idle_warning_minutes: 10,
        auto_close_minutes: 20,
        reoffer_minutes: 5,
      },
    ],
  },
);
export type AutomationSettings = Static<typeof AutomationSettings>;
