/**
 * The SDK socket as the OpenAPI document describes it (the description of `GET /{org}/{app}/ws`):
 * OpenAPI has no words for frames, and a description is smaller than an AsyncAPI document beside it.
 */
export const IM_SOCKET_DESCRIPTION = `Upgrades to a WebSocket: \`GET /{org}/{app}/ws?access_token=<user token>\` (or \`Authorization: Bearer <user token>\`).
\`resource=<device name>\` (optional, 1-64 letters, digits or \`_.:@-\`) names the device the socket is, the same at each of its connections: the user's own messages, recalls and edits made on their other devices while none was connected reach it at its next connection, and those it made never come back to it.
Refused before the upgrade with an HTTP error in the IM envelope: 400 (a \`resource\` that is not a device name), 401 (no, bad or expired token), 403 (an app-admin token),
404 (unknown app), 503 \`service_unavailable\` (the app is at its socket cap).

After the upgrade, every frame is a JSON text frame of at most 5 KiB (larger: an \`error\` frame \`message_send_error\`; over 64 KiB the socket is closed with 1009).

Client to server:

| op | Frame | Answer |
| --- | --- | --- |
| \`send\` | \`{"op":"send","id":"c-1","chat_type":"chat","to":"bob","bodies":[{"type":"txt","msg":"hi"}],"ext":{}}\`: \`id\` 1-64 characters chosen by the client, \`chat_type\` one of chat, groupchat, chatroom, \`to\` a user name, group id or room id, exactly one body (the REST message body with its \`type\`) | \`ack\` once the message is durably accepted |
| \`join\`, \`leave\` | \`{"op":"join","room":"123","id":"j-1"}\`: becomes or stops being a member of the chat room | \`ack\` |
| \`ping\` | \`{"op":"ping","id":"p-1"}\` | \`pong\` |

Server to client:

| op | Frame |
| --- | --- |
| \`ack\` | \`{"op":"ack","id":"c-1","msg_id":"1234567890123","timestamp":1767225600000}\` (\`msg_id\` on sends) |
| \`error\` | \`{"op":"error","id":"c-1","error":"illegal_argument","error_description":"bodies[0].type must be one of txt, img, audio, video, file, loc, cmd, custom"}\`: the same codes as over REST; the socket stays open |
| \`message\` | \`{"op":"message","msg_id":"1234567890123","from":"alice","to":"bob","chat_type":"chat","timestamp":1767225600000,"payload":{"bodies":[{"type":"txt","msg":"hi"}],"ext":{}}}\`: \`group_id\` on group and room messages, \`offline: true\` on messages stored while the user was offline (sent first, on connect) |
| \`pong\` | \`{"op":"pong","id":"p-1","timestamp":1767225600000}\` |

Frames of one socket are handled in order. The server pings every heartbeat interval and closes a socket that missed the previous ping.
Close codes: 1009 frame too large, 1013 slow consumer or app at its socket cap (reconnect later), 4003 not a user token, 4206 the user logged in on another device (do not reconnect).
See docs/im.md for the limits.`;
