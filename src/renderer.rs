//! Which renderer draws: the graphics adapter a run used ([`RendererInfo`], as reports, films and
//! bless records name it), and the renderer a command asks for ([`Choice`]: `--renderer
//! auto|lavapipe|swiftshader`). Bevy-free.
//!
//! Isla picks a renderer the way the Vulkan loader lets any program: `VK_ICD_FILENAMES` (and
//! its newer name `VK_DRIVER_FILES`) name the one driver manifest the loader may load.
//! `auto` leaves the loader alone, so a machine with a GPU draws on it and one without draws on
//! lavapipe. Both CPU renderers are found by their manifests: Mesa's lavapipe in the Vulkan
//! driver folders (`mesa-vulkan-drivers`), Google's SwiftShader beside a Chromium or Chrome
//! install (`chromium-common` on Debian, `/opt/google/chrome` where Google's package is
//! installed, as on GitHub's Ubuntu runners) or where `ISLA_SWIFTSHADER_ICD` points.

use std::path::{Path, PathBuf};

/// Which renderer drew the frames: the graphics adapter as the driver names it, and Isla's
/// version.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct RendererInfo {
    /// The adapter, e.g. "llvmpipe (LLVM 15.0.6, 256 bits)" or "NVIDIA H100 80GB HBM3".
    pub name: String,
    /// The driver, e.g. "llvmpipe" or "NVIDIA".
    pub driver: String,
    /// The driver's version text, e.g. "Mesa 22.3.6 (LLVM 15.0.6)".
    pub driver_info: String,
    /// The graphics API, e.g. "Vulkan".
    pub backend: String,
    /// "Cpu", "DiscreteGpu", … as wgpu names the device type.
    #[serde(default)]
    pub device_type: String,
    /// Isla's version.
    #[serde(default)]
    pub isla: String,
}

impl RendererInfo {
    /// The text a suite's `[tolerance.renderer."PATTERN"]` is matched against: the adapter, the
    /// driver, its version and the backend, space-separated.
    pub fn text(&self) -> String {
        format!("{} {} {} {}", self.name, self.driver, self.driver_info, self.backend)
    }

    /// How the report names it: "NAME (DRIVER DRIVER_INFO, BACKEND)" (an empty part left out).
    pub fn label(&self) -> String {
        let driver: Vec<&str> =
            [self.driver.as_str(), self.driver_info.as_str()].into_iter().filter(|s| !s.is_empty()).collect();
        format!("{} ({}, {})", self.name, driver.join(" "), self.backend)
    }

    /// Whether `other` is the same renderer (adapter, driver, driver version and backend; Isla's
    /// version aside).
    pub fn same_as(&self, other: &RendererInfo) -> bool {
        (&self.name, &self.driver, &self.driver_info, &self.backend)
            == (&other.name, &other.driver, &other.driver_info, &other.backend)
    }
}

/// The renderer a command asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Choice {
    /// What the system offers: a GPU where there is one, else lavapipe (the loader's own pick).
    #[default]
    Auto,
    /// Mesa's software Vulkan driver.
    Lavapipe,
    /// Google's software Vulkan driver, as shipped with Chromium and Chrome.
    SwiftShader,
}

/// The names `--renderer` takes, in the order help lists them.
pub const CHOICES: [&str; 3] = ["auto", "lavapipe", "swiftshader"];

/// Folders the Vulkan loader reads driver manifests from on Linux.
const ICD_DIRS: [&str; 4] =
    ["/usr/local/share/vulkan/icd.d", "/usr/share/vulkan/icd.d", "/etc/vulkan/icd.d", "/usr/local/etc/vulkan/icd.d"];

/// Where SwiftShader's manifest ships: Debian's and Ubuntu's Chromium, and Google Chrome.
pub const SWIFTSHADER_ICDS: [&str; 3] = [
    "/usr/lib/chromium/vk_swiftshader_icd.json",
    "/usr/lib/chromium-browser/vk_swiftshader_icd.json",
    "/opt/google/chrome/vk_swiftshader_icd.json",
];

impl std::str::FromStr for Choice {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "auto" => Ok(Self::Auto),
            "lavapipe" => Ok(Self::Lavapipe),
            "swiftshader" => Ok(Self::SwiftShader),
            _ => Err(format!("unknown renderer '{s}' ({})", CHOICES.join(", "))),
        }
    }
}

impl std::fmt::Display for Choice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(CHOICES[*self as usize])
    }
}

impl Choice {
    /// Whether this renderer can draw into a window. SwiftShader as Chromium and Chrome ship it
    /// draws off-screen only: it offers no window surface.
    pub fn presents(self) -> bool {
        self != Self::SwiftShader
    }

    /// The driver manifest that selects this renderer (`None` for `auto`), or why it cannot be
    /// had: one line naming the renderer and where it was looked for.
    pub fn manifest(self) -> Result<Option<PathBuf>, String> {
        match self {
            Self::Auto => Ok(None),
            Self::Lavapipe => {
                let found = ICD_DIRS.iter().flat_map(|d| lavapipe_manifests(Path::new(d))).next();
                let path = found.ok_or_else(|| {
                    format!(
                        "renderer lavapipe is not installed: no lvp_icd*.json in {} (Debian's mesa-vulkan-drivers; scripts/system-packages installs it)",
                        ICD_DIRS.join(", ")
                    )
                })?;
                check_manifest("lavapipe", &path).map(Some)
            }
            Self::SwiftShader => {
                let own = std::env::var_os("ISLA_SWIFTSHADER_ICD").map(PathBuf::from);
                if let Some(p) = own {
                    return check_manifest("swiftshader", &p).map(Some);
                }
                let path = SWIFTSHADER_ICDS.iter().map(PathBuf::from).find(|p| p.is_file()).ok_or_else(|| {
                    format!(
                        "renderer swiftshader is not installed: no {} (Debian's chromium-common, or Google Chrome; scripts/system-packages installs it; ISLA_SWIFTSHADER_ICD names another manifest)",
                        SWIFTSHADER_ICDS.join(", nor ")
                    )
                })?;
                check_manifest("swiftshader", &path).map(Some)
            }
        }
    }

    /// Make this renderer the one the Vulkan loader offers to this process, before any graphics
    /// work; returns its manifest (`None` for `auto`, which leaves the environment as it is).
    ///
    /// Call it before any thread starts: it sets environment variables.
    pub fn select(self) -> Result<Option<PathBuf>, String> {
        let manifest = self.manifest()?;
        if let Some(m) = &manifest {
            // SAFETY: the command line calls this on the main thread before any other starts.
            unsafe {
                std::env::set_var("VK_ICD_FILENAMES", m);
                std::env::set_var("VK_DRIVER_FILES", m);
            }
        }
        Ok(manifest)
    }

    /// Whether the adapter a run got is this renderer (always, for `auto`).
    pub fn is(self, info: &RendererInfo) -> bool {
        let text = info.text().to_lowercase();
        match self {
            Self::Auto => true,
            Self::Lavapipe => text.contains("llvmpipe"),
            Self::SwiftShader => text.contains("swiftshader"),
        }
    }
}

/// Mesa's lavapipe manifests in `dir`, this machine's architecture first.
fn lavapipe_manifests(dir: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("lvp_icd") && n.ends_with(".json"))
        })
        .collect();
    found.sort_by_key(|p| (!p.to_string_lossy().contains(std::env::consts::ARCH), p.clone()));
    found
}

/// `path` as the manifest of renderer `name`: a driver manifest that exists and names a library that exists (a bare library name is left
/// to the loader's search).
pub fn check_manifest(name: &str, path: &Path) -> Result<PathBuf, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("renderer {name}: {}: {e}", path.display()))?;
    let json: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| format!("renderer {name}: {}: not a driver manifest: {e}", path.display()))?;
    let lib = json["ICD"]["library_path"]
        .as_str()
        .ok_or_else(|| format!("renderer {name}: {}: no ICD.library_path", path.display()))?;
    if lib.contains('/') {
        let lib_path = path.parent().unwrap_or(Path::new("")).join(lib);
        if !lib_path.is_file() {
            return Err(format!(
                "renderer {name}: {} names {}, which does not exist",
                path.display(),
                lib_path.display()
            ));
        }
    }
    Ok(path.to_path_buf())
}
