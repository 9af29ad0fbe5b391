// cv_calib.cpp: OpenCV calib3d behind cv_calib.h. Kept to the calls the C face promises.
#include "cv_calib.h"
#include <opencv2/calib3d.hpp>
#include <opencv2/imgproc.hpp>
#include <cmath>
#include <cstring>
#include <exception>

namespace {

void report(const char *what, char *error, int size) {
    if (error && size > 0) {
        std::strncpy(error, what, size - 1);
        error[size - 1] = 0;
    }
}

template <typename Body> int guarded(char *error, int size, Body body) {
    try {
        return body();
    } catch (const cv::Exception &e) {
        report(e.what(), error, size);
    } catch (const std::exception &e) {
        report(e.what(), error, size);
    }
    return -1;
}

void copy(const cv::Mat &m, double *out, int n) {
    cv::Mat d;
    m.convertTo(d, CV_64F);
    d = d.reshape(1, 1);
    for (int i = 0; i < n; i++) out[i] = i < d.cols ? d.at<double>(0, i) : 0;
}

std::vector<std::vector<cv::Point2f>> points(const float *xy, int count, int views) {
    std::vector<std::vector<cv::Point2f>> all(views);
    for (int v = 0; v < views; v++)
        for (int i = 0; i < count; i++)
            all[v].emplace_back(xy[(v * count + i) * 2], xy[(v * count + i) * 2 + 1]);
    return all;
}

double reprojection(const std::vector<cv::Point3f> &object, const std::vector<cv::Point2f> &seen,
                    const cv::Mat &K, const cv::Mat &D, const cv::Mat &rvec, const cv::Mat &tvec) {
    std::vector<cv::Point2f> projected;
    cv::projectPoints(object, rvec, tvec, K, D, projected);
    double sum = 0;
    for (size_t i = 0; i < seen.size(); i++) {
        cv::Point2f d = projected[i] - seen[i];
        sum += d.dot(d);
    }
    return std::sqrt(sum / seen.size());
}

}  // namespace

int cgcv_find_chessboard(const uint8_t *gray, int width, int height, int stride, int cols, int rows, int quick,
                         float *corners, char *error, int error_size) {
    return guarded(error, error_size, [&] {
        cv::Mat image(height, width, CV_8UC1, const_cast<uint8_t *>(gray), stride);
        cv::Size board(cols, rows);
        std::vector<cv::Point2f> found;
        if (quick) {
            bool ok = cv::findChessboardCorners(
                image, board, found, cv::CALIB_CB_ADAPTIVE_THRESH | cv::CALIB_CB_NORMALIZE_IMAGE | cv::CALIB_CB_FAST_CHECK);
            if (!ok || (int)found.size() != cols * rows) return 0;
            cv::cornerSubPix(image, found, cv::Size(5, 5), cv::Size(-1, -1),
                             cv::TermCriteria(cv::TermCriteria::EPS + cv::TermCriteria::COUNT, 20, 0.03));
            for (size_t i = 0; i < found.size(); i++) {
                corners[2 * i] = found[i].x;
                corners[2 * i + 1] = found[i].y;
            }
            return 1;
        }
        // The quick search first; the exhaustive one (several times slower) only when it fails.
        bool ok = cv::findChessboardCornersSB(image, board, found, cv::CALIB_CB_NORMALIZE_IMAGE | cv::CALIB_CB_ACCURACY);
        if (!ok)
            ok = cv::findChessboardCornersSB(
                image, board, found, cv::CALIB_CB_NORMALIZE_IMAGE | cv::CALIB_CB_EXHAUSTIVE | cv::CALIB_CB_ACCURACY);
        if (!ok) {
            ok = cv::findChessboardCorners(image, board, found,
                                           cv::CALIB_CB_ADAPTIVE_THRESH | cv::CALIB_CB_NORMALIZE_IMAGE);
            if (ok)
                cv::cornerSubPix(image, found, cv::Size(11, 11), cv::Size(-1, -1),
                                 cv::TermCriteria(cv::TermCriteria::EPS + cv::TermCriteria::COUNT, 30, 0.01));
        }
        if (!ok || (int)found.size() != cols * rows) return 0;
        for (size_t i = 0; i < found.size(); i++) {
            corners[2 * i] = found[i].x;
            corners[2 * i + 1] = found[i].y;
        }
        return 1;
    });
}

int cgcv_stereo_calibrate(const float *object, int count, const float *left, const float *right, int views,
                          int width, int height, cgcv_stereo_result *result, double *per_view,
                          char *error, int error_size) {
    return guarded(error, error_size, [&] {
        std::vector<cv::Point3f> board;
        for (int i = 0; i < count; i++) board.emplace_back(object[3 * i], object[3 * i + 1], object[3 * i + 2]);
        std::vector<std::vector<cv::Point3f>> boards(views, board);
        auto l = points(left, count, views), r = points(right, count, views);
        cv::Size size(width, height);
        cv::Mat K1, D1, K2, D2, R, T, E, F;
        std::vector<cv::Mat> rl, tl, rr, tr;
        result->rms_left = cv::calibrateCamera(boards, l, size, K1, D1, rl, tl);
        result->rms_right = cv::calibrateCamera(boards, r, size, K2, D2, rr, tr);
        result->rms_stereo = cv::stereoCalibrate(
            boards, l, r, K1, D1, K2, D2, size, R, T, E, F, cv::CALIB_USE_INTRINSIC_GUESS,
            cv::TermCriteria(cv::TermCriteria::COUNT + cv::TermCriteria::EPS, 100, 1e-6));
        cv::Mat R1, R2, P1, P2, Q;
        cv::stereoRectify(K1, D1, K2, D2, size, R, T, R1, R2, P1, P2, Q, cv::CALIB_ZERO_DISPARITY, 0);
        if (per_view) {
            // Each view's error with the refined intrinsics: the board's pose from the left view,
            // carried to the right camera by (R, T).
            for (int v = 0; v < views; v++) {
                cv::Mat rvec, tvec;
                cv::solvePnP(board, l[v], K1, D1, rvec, tvec);
                per_view[2 * v] = reprojection(board, l[v], K1, D1, rvec, tvec);
                cv::Mat Rl, Rr, rvr;
                cv::Rodrigues(rvec, Rl);
                Rr = R * Rl;
                cv::Rodrigues(Rr, rvr);
                cv::Mat tvr = R * tvec + T;
                per_view[2 * v + 1] = reprojection(board, r[v], K2, D2, rvr, tvr);
            }
        }
        double sum = 0, worst = 0;
        long n = 0;
        for (int v = 0; v < views; v++) {
            std::vector<cv::Point2f> ul, ur;
            cv::undistortPoints(l[v], ul, K1, D1, R1, P1);
            cv::undistortPoints(r[v], ur, K2, D2, R2, P2);
            for (int i = 0; i < count; i++) {
                double dy = std::fabs(ul[i].y - ur[i].y);
                sum += dy;
                worst = std::max(worst, dy);
                n++;
            }
        }
        result->epipolar_mean = n ? sum / n : 0;
        result->epipolar_max = worst;
        copy(K1, result->K1, 9); copy(D1, result->D1, 5); copy(K2, result->K2, 9); copy(D2, result->D2, 5);
        copy(R, result->R, 9); copy(T, result->T, 3); copy(E, result->E, 9); copy(F, result->F, 9);
        copy(R1, result->R1, 9); copy(R2, result->R2, 9); copy(P1, result->P1, 12); copy(P2, result->P2, 12);
        copy(Q, result->Q, 16);
        return 0;
    });
}

int cgcv_read_matrix(const char *path, const char *key, double *values, int capacity, char *error, int error_size) {
    return guarded(error, error_size, [&] {
        cv::FileStorage fs(path, cv::FileStorage::READ);
        if (!fs.isOpened()) {
            report("OpenCV's FileStorage cannot open the file", error, error_size);
            return -1;
        }
        cv::Mat m;
        fs[key] >> m;
        if (m.empty()) {
            report("no such matrix in the file", error, error_size);
            return -1;
        }
        int n = (int)m.total();
        copy(m, values, std::min(n, capacity));
        return n;
    });
}
