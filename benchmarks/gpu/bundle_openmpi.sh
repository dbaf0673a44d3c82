#!/usr/bin/env bash
# Copies this machine's Open MPI (Debian's openmpi-bin and libopenmpi3: mpirun, orted, the libraries, the plugins,
# PMIx, the help files) and every shared library they and the given programs need into one folder, for a machine
# of the same processor that has no Open MPI and no package manager (a rented GPU host, a container). There:
#   source FOLDER/env.sh                   # sets OPAL_PREFIX, PMIx's prefix, PATH and LD_LIBRARY_PATH
#   mpirun -np 4 ./euler43_mpi --all       # as root, add --allow-run-as-root (or export the two OMPI_ALLOW_... below)
# The C library and the dynamic loader are not copied: the other machine's are used (they must be as new as this
# machine's, or newer). Build the programs here with -static-libstdc++ -static-libgcc so that they do not need
# this machine's C++ library either.
#   benchmarks/gpu/bundle_openmpi.sh FOLDER [PROGRAM...]
set -euo pipefail

destination="${1:?bundle_openmpi.sh: give the folder to fill}"
shift
triplet="$(gcc -dumpmachine 2>/dev/null || echo x86_64-linux-gnu)"
[ -d "/usr/lib/$triplet/openmpi" ] || { echo "bundle_openmpi.sh: no /usr/lib/$triplet/openmpi (apt-get install openmpi-bin libopenmpi-dev)" >&2; exit 1; }

mkdir -p "$destination/bin" "$destination/lib/$triplet" "$destination/share"
destination="$(cd "$destination" && pwd)"
# Open MPI relocates every path under its prefix (/usr) to OPAL_PREFIX: keep the same layout below it
cp -L "$(readlink -f /usr/bin/orterun)" "$destination/bin/orterun"
cp -L /usr/bin/orted "$destination/bin/orted"
ln -sf orterun "$destination/bin/mpirun"
ln -sf orterun "$destination/bin/mpiexec"
rm -rf "$destination/lib/$triplet/openmpi" "$destination/lib/$triplet/pmix2" "$destination/share/openmpi"
# the plugins and help files only: the libraries themselves are gathered below, once
mkdir -p "$destination/lib/$triplet/openmpi/lib"
cp -rL "/usr/lib/$triplet/openmpi/lib/openmpi3" "$destination/lib/$triplet/openmpi/lib/openmpi3"
cp -rL /usr/share/openmpi "$destination/share/openmpi"
if [ -d "/usr/lib/$triplet/pmix2" ]; then
  mkdir -p "$destination/lib/$triplet/pmix2/lib"
  cp -rL "/usr/lib/$triplet/pmix2/lib/pmix" "$destination/lib/$triplet/pmix2/lib/pmix"
  cp -rL "/usr/lib/$triplet/pmix2/share" "$destination/lib/$triplet/pmix2/share"
fi

# every shared library the binaries, the plugins and the programs load, but the C library's own
objects=("$destination/bin/orterun" "$destination/bin/orted" "/usr/lib/$triplet/libmpi.so.40" "$@")
while IFS= read -r -d '' plugin; do objects+=("$plugin"); done < <(find "$destination/lib" -name '*.so*' -type f -print0)
for object in "${objects[@]}"; do
  ldd "$object" 2>/dev/null | awk '/=> \// { print $3 }'
done | sort -u | while read -r library; do
  case "$(basename "$library")" in
    libc.so.*|libm.so.*|libdl.so.*|libpthread.so.*|librt.so.*|libresolv.so.*|ld-linux*|libutil.so.*) continue ;;
    libstdc++.so.*|libgcc_s.so.*) continue ;;  # the other machine's own, which are newer
  esac
  cp -L "$library" "$destination/lib/"
done

cat > "$destination/env.sh" <<'ENV'
# Sourced: the bundled Open MPI in place of an installed one.
bundle="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
triplet="$(ls "$bundle/lib" | grep -m1 -- '-linux-gnu$')"
export OPAL_PREFIX="$bundle"
export PMIX_INSTALL_PREFIX="$bundle/lib/$triplet/pmix2" PMIX_PREFIX="$bundle/lib/$triplet/pmix2"
export PATH="$bundle/bin:$PATH"
export LD_LIBRARY_PATH="$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# one node, no network fabric: shared memory between the ranks, no probing for InfiniBand or UCX
# PMIx looks for its plugins where it was installed unless told
export PMIX_MCA_mca_base_component_path="$bundle/lib/$triplet/pmix2/lib/pmix"
export OMPI_MCA_btl=self,vader OMPI_MCA_pml=ob1 OMPI_MCA_osc=^ucx OMPI_MCA_btl_vader_single_copy_mechanism=none
ENV
echo "bundle_openmpi.sh: $(du -sh "$destination" | cut -f1) in $destination; source $destination/env.sh there"
