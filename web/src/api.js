// Talking to the ferz server: JSON over HTTP and one WebSocket per view.

/** Fetch JSON; throws an Error carrying the server's message on a non-2xx answer. */
export async function api(path, options = {}) {
  const init = { ...options, headers: { ...(options.headers || {}) } };
  if (options.body !== undefined && typeof options.body !== 'string') {
    init.body = JSON.stringify(options.body);
    init.headers['content-type'] = 'application/json';
  }
  const res = await fetch(path, init);
  const text = await res.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = { error: text };
  }
  if (!res.ok) throw new Error((data && data.error) || `${res.status} ${res.statusText}`);
  return data;
}

// The banner under the header while a socket of the page is cut off from the server (shown
// after a second, so that a reconnect at once is no news).
const offline = new Set();
let bannerTimer = null;
function showOffline(socket, down) {
  if (down) offline.add(socket);
  else offline.delete(socket);
  const banner = document.getElementById('offline');
  if (!banner) return;
  clearTimeout(bannerTimer);
  if (!offline.size) banner.hidden = true;
  else bannerTimer = setTimeout(() => { banner.hidden = !offline.size; }, 1000);
}

/** A WebSocket that reconnects after a drop and hands every JSON message to `onMessage`. */
export class Socket {
  constructor(path, { onMessage, onOpen, onStatus }) {
    this.path = path;
    this.onMessage = onMessage;
    this.onOpen = onOpen;
    this.onStatus = onStatus || (() => {});
    this.closed = false;
    this.retry = 500;
    this.connect();
  }

  connect() {
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    this.ws = new WebSocket(`${proto}//${location.host}${this.path}`);
    this.ws.onopen = () => {
      this.retry = 500;
      showOffline(this, false);
      this.onStatus('online');
      if (this.onOpen) this.onOpen();
    };
    this.ws.onmessage = (ev) => {
      let msg;
      try {
        msg = JSON.parse(ev.data);
      } catch {
        return;
      }
      this.onMessage(msg);
    };
    this.ws.onclose = (ev) => {
      if (this.closed) return;
      // The server refused or ended this socket for good (no such game, deleted, no access).
      if ([4401, 4403, 4404, 4410].includes(ev.code)) {
        this.closed = true;
        showOffline(this, false);
        this.onStatus('closed');
        return;
      }
      this.onStatus('offline');
      showOffline(this, true);
      setTimeout(() => this.connect(), this.retry);
      this.retry = Math.min(this.retry * 2, 8000);
    };
  }

  /** Send a message; false if the socket is not open (the caller keeps its state). */
  send(msg) {
    if (this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(msg));
    return true;
  }

  /** Close for good (leaving the view). */
  close() {
    this.closed = true;
    showOffline(this, false);
    this.ws.close();
  }
}
