package concordia

/*
#include "concordia.h"
*/
import "C"

// ProfileCount is the number of conformance verification profiles.
const ProfileCount = C.CONCORDIA_PROFILE_COUNT

// VerifyProfile checks a record (input, JSON) under a conformance profile with its context
// object; nil means accept. The error's class is the reason class of the rejection.
func VerifyProfile(profile string, input, context []byte) error {
	var m cmem
	defer m.free()
	name := m.str(profile)
	return call(func() C.concordia_result {
		return C.concordia_verify_profile(name, in(input), C.size_t(len(input)), in(context), C.size_t(len(context)))
	})
}

// ProfileNames lists the conformance profiles.
func ProfileNames() []string {
	names := make([]string, 0, ProfileCount)
	for i := 0; i < ProfileCount; i++ {
		n, err := textOutput(func(o *C.uint8_t, c C.size_t, l *C.size_t) C.concordia_result {
			return C.concordia_profile_name(C.size_t(i), o, c, l)
		})
		if err == nil {
			names = append(names, n)
		}
	}
	return names
}
