// libqrencode (Debian's libqrencode-dev): the QR code of the HTTPS address on the LAN setup page.
#include <qrencode.h>
