/* The figures of `wavetool stats`: per band and channel statistics of a
 * pyramid held on an engine, energy shares, noise and rate estimates. */
#ifndef WT_CLI_FIGURES_H
#define WT_CLI_FIGURES_H

#include <stddef.h>

#include "wavetool.h"
#include "wavetool_hooks.h" /* wt_vcoeffs */

/* sigma = median |c| / this (the normal distribution's 75th percentile, as
 * skimage's estimate_sigma and Donoho-Johnstone's MAD estimate). */
#define FIGURES_MAD_SCALE 0.6744897501960817

typedef struct band_figures {
    wt_band_ref ref;
    size_t rows, cols;
    wt_band_stats s;            /* count, sums, min, max, max |c|, zeros, |c| <= eps */
    double mean, std;           /* std: population (numpy's ddof=0) */
    double energy_share;        /* 100 sum c^2 / sum of the channel's bands (wenergy2) */
    double zero_fraction, near_zero_fraction;
    double mad_sigma;           /* median |c| / FIGURES_MAD_SCALE */
    double entropy;             /* bits per coefficient of the quantiser indices */
    char key[8];                /* a volume's band: pywt's key ("aad", starlet "w"); else "" */
    char path[WT_PACKET_MAX_LEVELS + 1]; /* a packet leaf's path ("" the root) */
    double cost;                /* a packet leaf's: its channel's wentropy (--cost) */
    size_t depth;               /* a volume's band: its z size */
} band_figures;

typedef struct file_figures {
    char *file;
    wt_image layout; /* size, channels, depth (pixels NULL) */
    wt_params params;
    wt_transform transform; /* dwt, or the undecimated swt / starlet */
    wt_border border;       /* starlet */
    size_t depth;           /* a volume's z size; 0 for an image */
    int naxes, axes[3];     /* a volume's axes transformed */
    wt_packet_rule basis;   /* packets: the basis and the cost that chose it */
    wt_packet_cost cost;
    double qstep, eps;
    double bpp; /* sum over bands of count x entropy, per pixel of the image */
    size_t nbands;
    band_figures *bands; /* cA of every channel, then cH, cV, cD from the coarsest;
                            packets: the leaves depth first (a h v d) */
} file_figures;

/* Default quantiser step: 1/256 of the nominal range 2^b (Kakadu's Qstep), b
 * the bits the samples use: 8 for 8-bit images, for 16-bit the bits of the
 * largest sample (at least 8: counts up to 4694 are 13-bit, Q = 32); 1 for
 * float32 samples (one unit of their own). */
double figures_default_qstep(const wt_image *img);
/* The same from the depth and the largest sample (a volume's). */
double figures_qstep_for(int bit_depth, double largest);

/* Compute @p f's bands from a pyramid after its forward transform; f->layout,
 * params, qstep and eps set by the caller. */
wt_status figures_compute(const wt_epyramid *ep, file_figures *f);

/* The same figures over an undecimated band stack (wt_uforward, trim_approx:
 * no all_approx), computed on the host: SWT cA_L then cH, cV, cD from the
 * coarsest level; starlet c, w1..wL. f->layout, params, transform, qstep, eps
 * set by the caller. */
wt_status figures_compute_stack(const wt_uparams *up, const float *stack, file_figures *f);

/* The same figures over a volume's bands (wt_volume_forward), each channel
 * of each band in the bands' order; f->layout (x, y), depth, axes, params,
 * transform, qstep and eps set by the caller. */
wt_status figures_compute_volume(const wt_vcoeffs *k, file_figures *f);

/* The same figures over the leaves of @p basis in @p t (depth first, a h v d,
 * each leaf's channels together), with each leaf's path and its cost per
 * channel (f->cost; a leaf's cost is the sum over its channels); energy
 * shares over the leaves. f->layout, qstep and eps set by the caller. */
wt_status figures_compute_packets(const wt_packet_tree *t, const unsigned char *basis,
                                  file_figures *f);

/* 1 when @p f holds a packet basis's leaves. */
int figures_are_packets(const file_figures *f);

/* Estimated bits per pixel of the whole pyramid at step @p qstep (every band,
 * every channel, zeroth-order entropy), per pixel of a @p pixels image. */
wt_status figures_bpp(const wt_epyramid *ep, double qstep, double pixels, double *bpp);

void figures_free(file_figures *f);

/* "cA3", "cH1", ...; SWT "cA", "cH1" (as its .npz); starlet "c", "w1" (ref
 * level L band A: c; level j band H: w_j). */
void figures_band_name(wt_transform t, const wt_band_ref *r, char *buf, size_t size);
/* A band's name in @p f: a volume's KEY + LEVEL ("aad2", "w1"), a packet
 * leaf's path ("root" for the root, as its .npz member), else as above. */
void figures_name_of(const file_figures *f, const band_figures *b, char *buf, size_t size);
/* The orientation letter of a band: A, H, V, D; starlet A (c) or W (w_j). */
char figures_orientation(wt_transform t, const wt_band_ref *r);

#endif
