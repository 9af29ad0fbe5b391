// cv_calib.h: the C face of OpenCV's calib3d for cinegraph calibrate — chessboard corners,
// single and stereo calibration, rectification, and the rectified views' vertical error.
// Every call catches OpenCV's exceptions and reports them as text; nothing throws across.
#ifndef CV_CALIB_H
#define CV_CALIB_H
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Finds the inner corners of a cols×rows chessboard in an 8-bit grey picture, to sub-pixel
/// accuracy (the sector-based detector, findChessboardCornersSB, with the classic detector and
/// cornerSubPix as a fallback). With `quick`, only the classic detector with its fast check for
/// a board and a small cornerSubPix window: tens of milliseconds, for live feedback. Writes
/// 2·cols·rows floats (x, y; row by row, x fastest) and returns 1 when the whole board was
/// found, 0 when not, -1 on an error (message in `error`).
int cgcv_find_chessboard(const uint8_t *gray, int width, int height, int stride, int cols, int rows, int quick,
                         float *corners, char *error, int error_size);

/// The result of a stereo calibration. Matrices are row-major doubles.
typedef struct {
    double K1[9], D1[5], K2[9], D2[5];
    double R[9], T[3], E[9], F[9];
    double R1[9], R2[9], P1[12], P2[12], Q[16];
    double rms_left, rms_right, rms_stereo;
    /// Mean and largest |y_left − y_right| of the corners after rectification, in pixels.
    double epipolar_mean, epipolar_max;
} cgcv_stereo_result;

/// Calibrates each camera (calibrateCamera, five distortion coefficients), then the pair
/// (stereoCalibrate, refining the intrinsics from there), and rectifies (stereoRectify,
/// alpha 0). `object` holds 3·count points of the board; `left` and `right` hold
/// views·count·2 image points. `per_view` (2·views doubles, may be NULL) receives each view's
/// RMS reprojection error in the left and the right image. Returns 0, or -1 with `error` set.
int cgcv_stereo_calibrate(const float *object, int count, const float *left, const float *right, int views,
                          int width, int height, cgcv_stereo_result *result, double *per_view,
                          char *error, int error_size);

/// Reads the matrix `key` from a FileStorage file (YAML or XML) with OpenCV's own reader, into
/// up to `capacity` doubles. Returns how many it read, or -1 with `error` set.
int cgcv_read_matrix(const char *path, const char *key, double *values, int capacity, char *error, int error_size);

#ifdef __cplusplus
}
#endif
#endif
