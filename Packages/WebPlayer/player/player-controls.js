// The control bar the viewer page draws over the video (docs/web.md "The viewer page"): play and
// pause, a seek bar showing the buffered ranges, the time, volume and mute, menus for quality
// (with an automatic choice), audio language and subtitles, and fullscreen; keyboard shortcuts
// space, ←/→ (5 s), ↑/↓ (volume), f and m. The bar stays shown: it is never hidden on a timer,
// so it and the status line are always inside the viewport.
const SEEK_STEP_SECONDS = 5;
const VOLUME_STEP = 0.1;

function element(tag, attributes = {}, text = "") {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  if (text) node.textContent = text;
  return node;
}

/** `m:ss` or `h:mm:ss`. */
export function formatTime(seconds) {
  const whole = Math.max(0, Math.floor(Number.isFinite(seconds) ? seconds : 0));
  const h = Math.floor(whole / 3600), m = Math.floor((whole % 3600) / 60), s = whole % 60;
  const pad = (n) => String(n).padStart(2, "0");
  return h ? `${h}:${pad(m)}:${pad(s)}` : `${m}:${pad(s)}`;
}

export class PlayerControls {
  /** Builds the bar inside `container` for `video` in `stage` (the element made fullscreen).
   * `player` is the MediaDRMPlayer (its qualities, audio and subtitle tracks). */
  constructor({ container, stage, video, player }) {
    this.video = video;
    this.stage = stage;
    this.player = player;
    this.container = container;
    this.listeners = [];
    this.build();
    this.listen(video, ["timeupdate", "progress", "durationchange", "seeked", "loadedmetadata"], () => this.updateTime());
    this.listen(video, ["play", "pause", "ended"], () => this.updatePlay());
    this.listen(video, ["volumechange"], () => this.updateVolume());
    this.listen(player, ["trackschange", "variantchange"], () => this.updateMenus());
    this.listen(document, ["fullscreenchange"], () => this.updateFullscreen());
    this.listen(document, ["keydown"], (event) => this.onKey(event));
    this.listen(document, ["click"], (event) => { if (!this.container.contains(event.target)) this.closeMenus(); });
    this.updateAll();
  }

  listen(target, types, handler) {
    for (const type of types) {
      target.addEventListener(type, handler);
      this.listeners.push(() => target.removeEventListener(type, handler));
    }
  }

  /** Removes the bar and its listeners. */
  destroy() {
    for (const remove of this.listeners) remove();
    this.listeners = [];
    this.container.replaceChildren();
  }

  build() {
    const bar = element("div", { class: "control-bar" });
    this.seek = element("div", { class: "seek", role: "slider", tabindex: "0", "aria-label": "Seek", "aria-valuemin": "0" });
    this.buffered = element("div", { class: "seek-buffered" });
    this.played = element("div", { class: "seek-played" });
    this.seek.append(this.buffered, this.played);
    this.seek.addEventListener("click", (event) => {
      const box = this.seek.getBoundingClientRect();
      if (box.width > 0 && Number.isFinite(this.video.duration)) this.video.currentTime = ((event.clientX - box.left) / box.width) * this.video.duration;
    });
    const row = element("div", { class: "control-row" });
    this.playButton = element("button", { type: "button", id: "control-play", class: "control" });
    this.playButton.addEventListener("click", () => this.togglePlay());
    this.time = element("span", { id: "control-time", class: "time" });
    this.muteButton = element("button", { type: "button", id: "control-mute", class: "control" });
    this.muteButton.addEventListener("click", () => { this.video.muted = !this.video.muted; });
    this.volume = element("input", { type: "range", id: "control-volume", class: "volume", min: "0", max: "1", step: "0.05", "aria-label": "Volume" });
    this.volume.addEventListener("input", () => { this.video.volume = Number(this.volume.value); this.video.muted = false; });
    const spacer = element("span", { class: "spacer" });
    this.menus = {
      quality: this.menu("quality", "Quality", "HD"),
      audio: this.menu("audio", "Audio", "Audio"),
      subtitles: this.menu("subtitles", "Subtitles", "CC"),
    };
    this.fullscreenButton = element("button", { type: "button", id: "control-fullscreen", class: "control" });
    this.fullscreenButton.addEventListener("click", () => this.toggleFullscreen());
    row.append(this.playButton, this.time, this.muteButton, this.volume, spacer,
      ...Object.values(this.menus).map((m) => m.wrapper), this.fullscreenButton);
    bar.append(this.seek, row);
    this.container.replaceChildren(bar);
  }

  /** A menu button (`short`: its text before a choice) with its list of choices (filled by updateMenus). */
  menu(id, label, short) {
    const wrapper = element("div", { class: "menu" });
    const button = element("button", { type: "button", id: `control-${id}`, class: "control", "aria-haspopup": "true", "aria-expanded": "false" }, label);
    const list = element("ul", { id: `menu-${id}`, class: "menu-list", role: "menu", hidden: "" });
    button.addEventListener("click", (event) => {
      event.stopPropagation();
      const open = list.hidden;
      this.closeMenus();
      list.hidden = !open;
      button.setAttribute("aria-expanded", String(open));
    });
    wrapper.append(button, list);
    return { wrapper, button, list, label, short };
  }

  closeMenus() {
    for (const { list, button } of Object.values(this.menus)) {
      list.hidden = true;
      button.setAttribute("aria-expanded", "false");
    }
  }

  /** Fills a menu with `choices` [{label, value, selected}]; `choose(value)` on a pick. */
  fill(menu, choices, choose) {
    menu.wrapper.hidden = choices.length < 2;
    menu.list.replaceChildren(...choices.map(({ label, value, selected }) => {
      const item = element("li", { role: "none" });
      const button = element("button", { type: "button", role: "menuitemradio", "aria-checked": String(selected), "data-value": String(value) }, label);
      button.addEventListener("click", (event) => {
        event.stopPropagation();
        this.closeMenus();
        Promise.resolve(choose(value)).catch((error) => this.onError?.(error));
      });
      item.append(button);
      return item;
    }));
    // The button shows the choice in a word (it must fit a phone's bar); its label says the rest.
    const chosen = choices.find((c) => c.selected);
    menu.button.textContent = chosen?.short ?? menu.short;
    menu.button.setAttribute("aria-label", chosen ? `${menu.label}: ${chosen.label}` : menu.label);
  }

  updateMenus() {
    const qualities = this.player.qualities;
    const active = qualities.list[qualities.active];
    this.fill(this.menus.quality, qualities.list.length < 2 ? [] : [
      { label: `Auto${qualities.selected === "auto" && active ? ` (${active.height}p)` : ""}`, short: "Auto", value: "auto", selected: qualities.selected === "auto" },
      ...[...qualities.list].reverse().map((q) => ({ label: `${q.height}p · ${Math.round(q.bandwidth / 1000)} kb/s`, short: `${q.height}p`,
        value: q.index, selected: qualities.selected === q.index })),
    ], (value) => this.player.setQuality(value === "auto" ? "auto" : Number(value)));
    const audio = this.player.audioTracks;
    this.fill(this.menus.audio, audio.list.map((t) => ({ label: t.name ?? t.language, short: (t.language ?? "").toUpperCase(), value: t.language, selected: t.language === audio.selected })),
      (value) => this.player.setAudioLanguage(value));
    const subtitles = this.player.subtitleTracks;
    const subtitleChoices = subtitles.list.map((t) => ({ label: t.name ?? t.language, short: `CC ${t.language}`, value: t.language, selected: t.language === subtitles.selected }));
    this.fill(this.menus.subtitles, subtitles.list.length ? [{ label: "Off", short: "CC", value: "", selected: subtitles.selected === null }, ...subtitleChoices] : [],
      (value) => this.player.setSubtitles(value || null));
  }

  updateTime() {
    const duration = Number.isFinite(this.video.duration) ? this.video.duration : 0;
    const now = this.video.currentTime;
    this.time.textContent = `${formatTime(now)} / ${formatTime(duration)}`;
    this.played.style.width = duration ? `${(now / duration) * 100}%` : "0";
    this.seek.setAttribute("aria-valuemax", String(Math.floor(duration)));
    this.seek.setAttribute("aria-valuenow", String(Math.floor(now)));
    this.seek.setAttribute("aria-valuetext", this.time.textContent);
    // The buffered range around the playhead (the one that matters for playing on).
    const ranges = this.video.buffered;
    let start = 0, end = 0;
    for (let i = 0; i < ranges.length; i++) {
      if (ranges.start(i) <= now + 0.5 && ranges.end(i) >= now) { start = ranges.start(i); end = ranges.end(i); }
    }
    this.buffered.style.left = duration ? `${(start / duration) * 100}%` : "0";
    this.buffered.style.width = duration ? `${((end - start) / duration) * 100}%` : "0";
  }

  updatePlay() {
    const paused = this.video.paused;
    this.playButton.textContent = paused ? "▶" : "❚❚";
    this.playButton.setAttribute("aria-label", paused ? "Play" : "Pause");
  }

  updateVolume() {
    // Words, not emoji: a system without an emoji font would show an empty box.
    this.muteButton.textContent = this.video.muted || this.video.volume === 0 ? "Unmute" : "Mute";
    this.muteButton.setAttribute("aria-label", this.video.muted ? "Unmute" : "Mute");
    this.volume.value = String(this.video.muted ? 0 : this.video.volume);
  }

  updateFullscreen() {
    const full = document.fullscreenElement === this.stage;
    this.fullscreenButton.textContent = full ? "⤡" : "⤢";
    this.fullscreenButton.setAttribute("aria-label", full ? "Leave full screen" : "Full screen");
  }

  updateAll() {
    this.updateTime();
    this.updatePlay();
    this.updateVolume();
    this.updateFullscreen();
    this.updateMenus();
  }

  togglePlay() {
    if (this.video.paused) this.video.play().catch(() => {});
    else this.video.pause();
  }

  toggleFullscreen() {
    if (document.fullscreenElement) document.exitFullscreen().catch(() => {});
    else this.stage.requestFullscreen?.().catch(() => {});
  }

  /** The shortcuts, unless the viewer is typing in a field or the bar is not shown. */
  onKey(event) {
    if (this.container.closest("[hidden]") || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.target instanceof HTMLInputElement && event.target.type !== "range") return;
    // A focused button takes space itself (a click): a second toggle would undo it.
    if (event.key === " " && event.target instanceof HTMLButtonElement) return;
    const video = this.video;
    const duration = Number.isFinite(video.duration) ? video.duration : 0;
    switch (event.key) {
      case " ": this.togglePlay(); break;
      case "ArrowLeft": video.currentTime = Math.max(0, video.currentTime - SEEK_STEP_SECONDS); break;
      case "ArrowRight": video.currentTime = Math.min(duration, video.currentTime + SEEK_STEP_SECONDS); break;
      case "ArrowUp": video.muted = false; video.volume = Math.min(1, video.volume + VOLUME_STEP); break;
      case "ArrowDown": video.volume = Math.max(0, video.volume - VOLUME_STEP); break;
      case "f": this.toggleFullscreen(); break;
      case "m": video.muted = !video.muted; break;
      default: return;
    }
    event.preventDefault();
  }
}
