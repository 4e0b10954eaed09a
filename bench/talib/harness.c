/*
 * Timing harness for bench/indicators.ts: times TA-Lib C's functions on the bench's series and writes
 * their outputs, so the bench can compare times and values with the TypeScript kernels.
 *
 *   harness <series.bin> <bars>
 *
 * series.bin holds three arrays of <bars> native doubles: high, low, close. Output buffers are allocated
 * and touched once, before any timing, so a timed call is the TA-Lib call alone (how a C caller who
 * owns its buffers uses TA-Lib). Commands, one per line on stdin, answers on stdout:
 *
 *   time <case> <runs>   ->  "<case> <best ns>"  (best of <runs> calls, CLOCK_MONOTONIC)
 *   dump <dir>           ->  "dumped"; writes <dir>/<case>.<output>.bin, <bars> doubles each, aligned
 *                            with the input (NaN before TA-Lib's begIndex, as the kernels report)
 *   version              ->  TA-Lib's version string
 *
 * Cases: sma20 sma200 ema20 ema50 rsi14 trange atr14 stddev20 bbands20 macd (parameters as named;
 * BBANDS 20/2/2 with an SMA middle band, STDDEV 20 with 1 deviation, MACD 12/26/9).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "ta_libc.h"

#define MAX_OUT 3

typedef struct {
  const char *name;
  int outputs;
  const char *outNames[MAX_OUT];
  double *out[MAX_OUT];
  int begIdx;
  int nbElement;
} Case;

static Case cases[] = {
  { "sma20", 1, { "outReal" } },
  { "sma200", 1, { "outReal" } },
  { "ema20", 1, { "outReal" } },
  { "ema50", 1, { "outReal" } },
  { "rsi14", 1, { "outReal" } },
  { "trange", 1, { "outReal" } },
  { "atr14", 1, { "outReal" } },
  { "stddev20", 1, { "outReal" } },
  { "bbands20", 3, { "outRealUpperBand", "outRealMiddleBand", "outRealLowerBand" } },
  { "macd", 3, { "outMACD", "outMACDSignal", "outMACDHist" } },
};
#define CASES ((int)(sizeof(cases) / sizeof(cases[0])))

static int bars;
static double *high, *low, *close;

static int call(Case *c) {
  int e = bars - 1;
  int *b = &c->begIdx, *nb = &c->nbElement;
  double **o = c->out;
  const char *k = c->name;
  if (!strcmp(k, "sma20")) return TA_SMA(0, e, close, 20, b, nb, o[0]);
  if (!strcmp(k, "sma200")) return TA_SMA(0, e, close, 200, b, nb, o[0]);
  if (!strcmp(k, "ema20")) return TA_EMA(0, e, close, 20, b, nb, o[0]);
  if (!strcmp(k, "ema50")) return TA_EMA(0, e, close, 50, b, nb, o[0]);
  if (!strcmp(k, "rsi14")) return TA_RSI(0, e, close, 14, b, nb, o[0]);
  if (!strcmp(k, "trange")) return TA_TRANGE(0, e, high, low, close, b, nb, o[0]);
  if (!strcmp(k, "atr14")) return TA_ATR(0, e, high, low, close, 14, b, nb, o[0]);
  if (!strcmp(k, "stddev20")) return TA_STDDEV(0, e, close, 20, 1.0, b, nb, o[0]);
  if (!strcmp(k, "bbands20")) return TA_BBANDS(0, e, close, 20, 2.0, 2.0, TA_MAType_SMA, b, nb, o[0], o[1], o[2]);
  if (!strcmp(k, "macd")) return TA_MACD(0, e, close, 12, 26, 9, b, nb, o[0], o[1], o[2]);
  return -1;
}

static Case *find(const char *name) {
  for (int i = 0; i < CASES; i++)
    if (!strcmp(cases[i].name, name)) return &cases[i];
  return NULL;
}

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static double *load(FILE *f) {
  double *a = malloc(sizeof(double) * (size_t)bars);
  if (!a || fread(a, sizeof(double), (size_t)bars, f) != (size_t)bars) {
    fprintf(stderr, "cannot read %d doubles\n", bars);
    exit(1);
  }
  return a;
}

static int dump(const char *dir) {
  char path[4096];
  double *aligned = malloc(sizeof(double) * (size_t)bars);
  if (!aligned) return -1;
  for (int i = 0; i < CASES; i++) {
    Case *c = &cases[i];
    if (call(c) != TA_SUCCESS) return -1;
    for (int k = 0; k < c->outputs; k++) {
      for (int j = 0; j < bars; j++) aligned[j] = NAN;
      memcpy(aligned + c->begIdx, c->out[k], sizeof(double) * (size_t)c->nbElement);
      snprintf(path, sizeof path, "%s/%s.%s.bin", dir, c->name, c->outNames[k]);
      FILE *f = fopen(path, "wb");
      if (!f || fwrite(aligned, sizeof(double), (size_t)bars, f) != (size_t)bars) return -1;
      fclose(f);
    }
  }
  free(aligned);
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s <series.bin> <bars>\n", argv[0]);
    return 2;
  }
  bars = atoi(argv[2]);
  FILE *f = fopen(argv[1], "rb");
  if (!f || bars <= 0) {
    fprintf(stderr, "cannot open %s\n", argv[1]);
    return 1;
  }
  high = load(f);
  low = load(f);
  close = load(f);
  fclose(f);
  if (TA_Initialize() != TA_SUCCESS) {
    fprintf(stderr, "TA_Initialize failed\n");
    return 1;
  }
  for (int i = 0; i < CASES; i++)
    for (int k = 0; k < cases[i].outputs; k++) {
      cases[i].out[k] = malloc(sizeof(double) * (size_t)bars);
      if (!cases[i].out[k]) return 1;
      memset(cases[i].out[k], 0, sizeof(double) * (size_t)bars);
    }

  char line[4200], arg[4096];
  int runs;
  setvbuf(stdout, NULL, _IOLBF, 0);
  while (fgets(line, sizeof line, stdin)) {
    if (sscanf(line, "time %63s %d", arg, &runs) == 2) {
      Case *c = find(arg);
      if (!c) {
        printf("error unknown case %s\n", arg);
        continue;
      }
      double best = INFINITY;
      for (int r = 0; r < (runs < 1 ? 1 : runs); r++) {
        double t0 = now_ns();
        int rc = call(c);
        double t = now_ns() - t0;
        if (rc != TA_SUCCESS) {
          printf("error %s returned %d\n", arg, rc);
          break;
        }
        if (t < best) best = t;
      }
      printf("%s %.0f\n", c->name, best);
    } else if (sscanf(line, "dump %4095s", arg) == 1) {
      puts(dump(arg) == 0 ? "dumped" : "error dump failed");
    } else if (!strncmp(line, "version", 7)) {
      puts(TA_GetVersionString());
    } else if (!strncmp(line, "quit", 4)) {
      break;
    } else {
      printf("error unknown command\n");
    }
  }
  TA_Shutdown();
  return 0;
}
