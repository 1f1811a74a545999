// Keeps playback smooth on slow (software) renderers: while frames are being animated, the
// drawing buffer's resolution drops in steps when frames take longer than the target and
// climbs back when there is headroom; a still picture is always drawn at full resolution.

const STEPS = [1, 0.85, 0.7, 0.6, 0.5];  // fractions of the full pixel ratio
const SLOW_MS = 1000 / 30 + 3;  // slower than ~30 fps: step down
const FAST_MS = 1000 / 45;      // faster than 45 fps: step up

export class AdaptiveResolution {
  /** apply(fraction) sets the renderer's pixel ratio to fullRatio * fraction. */
  constructor(apply, enabled = true) {
    this.apply = apply;
    this.enabled = enabled;
    this.step = 0;
    this.average = 0;   // exponential average of the interval between drawn frames, ms
    this.samples = 0;
    this.last = null;
  }

  get fraction() { return STEPS[this.step]; }

  /** Called after each frame drawn while animating, with the rAF time stamp. */
  animated(now) {
    if (this.last !== null) {
      const interval = now - this.last;
      this.average = this.samples === 0 ? interval : 0.8 * this.average + 0.2 * interval;
      ++this.samples;
    }
    this.last = now;
    // Decide only on a settled average, and start over after each change.
    if (!this.enabled || this.samples < 8) return;
    if (this.average > SLOW_MS && this.step < STEPS.length - 1) this.change(this.step + 1);
    else if (this.average < FAST_MS && this.step > 0) this.change(this.step - 1);
  }

  /** Called when animation stops; returns true when a full-resolution redraw is needed. */
  still() {
    this.last = null;
    this.samples = 0;
    if (this.step === 0) return false;
    this.change(0);
    return true;
  }

  /** Called when animation (re)starts: resume at the step that worked last time. */
  resume() {
    if (this.remembered !== undefined && this.remembered !== this.step) this.change(this.remembered);
  }

  change(step) {
    if (step !== 0) this.remembered = step;
    this.step = step;
    this.samples = 0;
    this.apply(STEPS[step]);
  }
}
