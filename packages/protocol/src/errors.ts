/**
 * The one registry of Parley's error codes.
 *
 * Every error a client can see is listed here with its HTTP status, a message template and the
 * exception class name the IM envelope carries. The server renders both envelopes of the contract
 * (section 1) from this table, and `docs/errors.md` is checked against it by a test.
 *
 * `{placeholders}` in a message are filled from the error's params.
 */
export interface ErrorDefinition {
  readonly status: number;
  readonly message: string;
  /** Class name shown in the IM envelope's `exception` field. */
  readonly exception: string;
  /** Where the code is used: `api` (customer-service), `im`, or `both`. */
  readonly surface: 'api' | 'im' | 'both';
}

const def = (
  status: number,
  surface: ErrorDefinition['surface'],
  exception: string,
  message: string,
): ErrorDefinition => ({ status, surface, exception, message });

export const ERRORS = {
  // --- Generic, both surfaces -------------------------------------------------------------------
  invalid_request: def(400, 'api', 'InvalidRequestException', 'Invalid request: {detail}'),
  invalid_json: def(400, 'both', 'InvalidJsonException', 'The request body is not valid JSON: {detail}'),
  unauthorized: def(401, 'both', 'UnauthorizedException', 'Missing or invalid bearer token'),
  invalid_credentials: def(401, 'api', 'UnauthorizedException', 'Wrong username or password'),
  forbidden: def(403, 'both', 'ForbiddenException', 'You are not allowed to do this: {detail}'),
  csrf_required: def(403, 'both', 'CsrfRequiredException', 'A request signed in by the session cookie that changes state must send the header X-Parley-CSRF: 1'),
  not_found: def(404, 'api', 'ResourceNotFoundException', '{resource} not found'),
  route_not_found: def(404, 'both', 'RouteNotFoundException', 'No route {method} {url}'),
  method_not_allowed: def(405, 'both', 'MethodNotAllowedException', 'Method {method} is not allowed on {url}; allowed: {allow}'),
  conflict: def(409, 'both', 'DuplicateResourceException', '{resource} already exists: {detail}'),
  uri_too_long: def(414, 'both', 'UriTooLongException', 'The request URI is too long: a path segment is longer than {limit} characters'),
  payload_too_large: def(413, 'both', 'PayloadTooLargeException', 'Request body is larger than {limit} bytes'),
  unsupported_media_type: def(415, 'both', 'UnsupportedMediaTypeException', 'Content-Type {contentType} is not supported; send application/json'),
  upgrade_required: def(426, 'both', 'UpgradeRequiredException', '{url} is a WebSocket endpoint: open it with an Upgrade: websocket request'),
  rate_limited: def(429, 'api', 'RateLimitedException', 'Too many requests; retry after {retryAfter} s'),
  internal_error: def(500, 'both', 'InternalServerErrorException', 'Internal server error'),
  service_unavailable: def(503, 'both', 'ServiceUnavailableException', 'Service temporarily unavailable: {detail}'),

  // --- Accounts and tenants (/api) --------------------------------------------------------------
  duplicate_name: def(409, 'api', 'DuplicateNameException', '{resource} name {name} is already used in this tenant'),
  in_use: def(409, 'api', 'ResourceInUseException', '{resource} is in use: {detail}'),
  own_account: def(409, 'api', 'OwnAccountException', 'You cannot {action} your own account; another admin can'),
  wrong_current_password: def(400, 'api', 'WrongCurrentPasswordException', 'current_password is not your current password'),
  edition_not_supported: def(403, 'api', 'EditionNotSupportedException', 'The tenant edition {edition} does not include {feature}; the flagship edition is required. A system admin changes it with PUT /api/tenants/{tenantId} {"edition":"flagship"}'),

  // --- Area A: send-message API ----------------------------------------------------------------
  missing_authorization: def(401, 'api', 'MissingAuthorizationException', 'Missing or malformed Authorization header; expected "hmac {clientId}:{signature}"'),
  invalid_client: def(401, 'api', 'InvalidClientException', 'Unknown Client ID for this association'),
  invalid_signature: def(401, 'api', 'InvalidSignatureException', 'The signature does not match the request'),
  signature_expired: def(401, 'api', 'SignatureExpiredException', 'The signature expired at {expires}'),
  invalid_message: def(400, 'api', 'InvalidMessageException', 'Invalid message: {detail}'),
  invalid_callback_url: def(400, 'both', 'InvalidCallbackUrlException', 'Invalid callback URL: {detail}'),
  media_quota_exceeded: def(413, 'both', 'MediaQuotaExceededException', "The media storage quota of {quota} bytes (per tenant, or per IM app) is used up ({used} bytes stored); files are removed after the retention period"),
  conversation_state: def(409, 'api', 'ConversationStateException', 'Conversation {id} is {state}: {detail}'),
  invalid_report_range: def(400, 'api', 'InvalidReportRangeException', 'Invalid report range: {detail}'),
  report_range_too_long: def(400, 'api', 'ReportRangeTooLongException', 'The report range has {days} days; at most {max} are allowed'),

  // --- Area B: IM (Easemob-compatible names) ----------------------------------------------------
  illegal_argument: def(400, 'im', 'IllegalArgumentException', '{detail}'),
  invalid_grant: def(400, 'im', 'InvalidGrantException', 'Invalid username, password or client credentials'),
  auth_bad_access_token: def(401, 'im', 'UnauthorizedException', 'Unable to authenticate due to corrupt or expired access token'),
  duplicate_unique_property_exists: def(400, 'im', 'DuplicateUniquePropertyExistsException', 'Entity {entity} requires that property named {property} be unique, value of {value} exists'),
  organization_application_not_found: def(404, 'im', 'OrganizationApplicationNotFoundException', 'Could not find application for {org}/{app} from URI'),
  service_resource_not_found: def(404, 'im', 'ServiceResourceNotFoundException', '{resource} not found'),
  message_send_error: def(400, 'im', 'MessageSendException', '{detail}'),
  forbidden_op: def(403, 'im', 'ForbiddenOpException', '{detail}'),
  callback_rule_limit: def(400, 'im', 'CallbackRuleLimitException', 'An app has at most {max} callback rules; delete one first'),
  callback_service_disabled: def(403, 'im', 'CallbackServiceDisabledException', 'The callback service is not enabled for this app. Turn it on with PUT /{org}/{app}/callbacks/service {"enabled":true}, or with the Callback service switch on the console\'s Callback rules page'),
  reach_limit: def(429, 'im', 'ReachLimitException', 'This request has reached its frequency limit; retry after {retryAfter} s'),
} as const satisfies Record<string, ErrorDefinition>;

export type ErrorCode = keyof typeof ERRORS;

export const ERROR_CODES = Object.keys(ERRORS) as ErrorCode[];

export function isErrorCode(code: string): code is ErrorCode {
  return Object.prototype.hasOwnProperty.call(ERRORS, code);
}

/** Fill `{name}` placeholders; unknown ones are left visible so a missing param is noticed. */
export function formatErrorMessage(code: ErrorCode, params: Readonly<Record<string, unknown>> = {}): string {
  return ERRORS[code].message.replace(/\{(\w+)\}/g, (whole, name: string) =>
    params[name] === undefined ? whole : String(params[name]),
  );
}

/** Customer-service error envelope (contract 1). */
export interface ApiErrorBody {
  status: 'FAIL';
  errorCode: string;
  errorDescription: string;
  requestId: string;
}

/** IM error envelope (contract 1). */
export interface ImErrorBody {
  error: string;
  error_description: string;
  exception: string;
  timestamp: number;
  duration: number;
}
