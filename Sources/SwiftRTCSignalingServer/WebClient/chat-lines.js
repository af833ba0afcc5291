// The list of a chat box, for the call page (webclient.js) and the conference page
// (conference.js): one line per message, who said it and what, the oldest going first.

/** Chat lines a page shows, at most (the oldest go first). */
export const MAX_CHAT_LINES = 200;

/**
 * Adds a line to `list`: `from` (the sender as the page names it), then `text`; a line of
 * ours (`mine`) in the accent colour, one that was not sent (`unsent`) in red.
 */
export function addChatLine(list, from, text, { mine = false, unsent = false } = {}) {
  const item = document.createElement("li");
  if (mine) item.className = "mine";
  const sender = document.createElement("span");
  sender.className = "from";
  sender.textContent = from;
  const body = document.createElement("span");
  body.className = unsent ? "text unsent" : "text";
  body.textContent = text;
  item.append(sender, body);
  list.append(item);
  while (list.children.length > MAX_CHAT_LINES) list.firstElementChild.remove();
  list.scrollTop = list.scrollHeight;
}
