// Step-through viewer: the episodes are JSON in #episodes-data; nothing is fetched.
(function () {
  "use strict";
  const episodes = JSON.parse(document.getElementById("episodes-data").textContent);
  const $ = (id) => document.getElementById(id);
  const select = $("episode-select"), slider = $("step-slider");
  let episode = null, step = 0;

  episodes.forEach((ep, k) => {
    const option = document.createElement("option");
    option.value = String(k);
    option.textContent = ep.label;
    select.appendChild(option);
  });

  function views(ep) {
    // One view per answer, then the end of the episode.
    const out = ep.steps.map((s) => s);
    out.push({ observation: ep.final, answer: null, action: null, invalid: null,
               reward: null, frame: ep.final_frame, meta: "", end: true });
    return out;
  }

  function show() {
    const all = views(episode);
    step = Math.max(0, Math.min(step, all.length - 1));
    const v = all[step];
    slider.max = String(all.length - 1);
    slider.value = String(step);
    // An agent of numbers (record --html) gives actions, not answers: no answer panel.
    const numeric = episode.steps.every((s) => s.answer === null);
    const unit = numeric ? "step" : "answer";
    $("step-label").textContent = v.end ? `end (after ${all.length - 1} ${unit}s)`
                                        : `${unit} ${step + 1} of ${all.length - 1}`;
    $("observation").textContent = v.observation;
    $("answer").textContent = v.end || v.answer === null ? "" : v.answer;
    $("answer").parentElement.style.display = numeric ? "none" : "";
    $("thinking").textContent = v.thinking || "";
    $("thinking-panel").style.display = v.thinking ? "" : "none";
    const action = $("action");
    if (v.end) {
      action.textContent = `episode over: ${episode.outcome}, return ${episode.return}`;
      action.className = episode.success ? "valid" : "invalid";
    } else if (v.invalid !== null) {
      action.textContent = `invalid: ${v.invalid}`;
      action.className = "invalid";
    } else {
      action.textContent = `${v.action}   (reward ${v.reward})`;
      action.className = "valid";
    }
    $("turn-meta").textContent = v.meta || "";
    const picture = $("picture"), none = $("no-picture");
    if (episode.frames.length && v.frame !== null) {
      picture.src = episode.frames[v.frame];
      picture.style.display = "";
      none.style.display = "none";
    } else {
      picture.removeAttribute("src");
      picture.style.display = "none";
      none.style.display = "";
      none.textContent = episode.no_frames_reason || "no picture for this episode";
    }
    $("prev").disabled = step === 0;
    $("next").disabled = step === all.length - 1;
  }

  function load(k) {
    episode = episodes[k];
    step = 0;
    select.value = String(k);
    $("episode-meta").textContent = episode.meta;
    const system = $("system");
    system.parentElement.style.display = episode.system ? "" : "none";
    system.textContent = episode.system || "";
    show();
  }

  select.addEventListener("change", () => load(Number(select.value)));
  $("prev").addEventListener("click", () => { step -= 1; show(); });
  $("next").addEventListener("click", () => { step += 1; show(); });
  slider.addEventListener("input", () => { step = Number(slider.value); show(); });
  document.addEventListener("keydown", (e) => {
    if (e.target === select) return;
    if (e.key === "ArrowRight") { step += 1; show(); }
    if (e.key === "ArrowLeft") { step -= 1; show(); }
  });
  if (episodes.length) load(0);
})();
