// The calling thread's last error message for ae_last_error_message (animation_engine.h).
#include "animation_engine.h"
#include <string.h>

static _Thread_local char ae_message[1024];

const char *ae_last_error_message(void) { return ae_message; }

void ae_internal_set_message(const char *message) {
    if (message == NULL) {
        ae_message[0] = '\0';
        return;
    }
    strncpy(ae_message, message, sizeof ae_message - 1);
    ae_message[sizeof ae_message - 1] = '\0';
}
